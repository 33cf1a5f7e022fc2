import { useTranslation } from 'react-i18next';
import { errorText } from '@/shared/api/error-text';
import { ApiError } from '@/shared/api/http';
import { useToast } from '@/shared/ui/toast';
import type { Buckets, InstallmentState } from '../../api/plan';
import { StateNotice } from '../../ui/state-notice';
import { useMoney } from '../loan-money';
import { OrderNotFound } from '../orders/order-not-found';

/** A query's failure: a 404 is "no such loan (yet)", anything else an error with a retry. */
export function LoadFailed({ error, title, onRetry }: { error: Error; title: string; onRetry: () => void }) {
  const { t } = useTranslation();
  if (error instanceof ApiError && error.status === 404) return <OrderNotFound />;
  return <StateNotice kind="error" title={title} text={errorText(error, t)} onRetry={onRetry} />;
}

/** An installment's status as a coloured badge, in words. */
export function InstallmentBadge({ status }: { status: InstallmentState }) {
  const { t } = useTranslation();
  return <span className={`installment-badge installment-badge--${status}`}>{t(`servicing.installmentStatus.${status}`)}</span>;
}

/** The split of an amount: principal, interest, fees and late charges (the amount itself is shown above it). */
export function BucketFigures({ buckets }: { buckets: Buckets }) {
  const { t } = useTranslation();
  const money = useMoney();
  return (
    <dl className="figures">
      {(['principal', 'interest', 'fees', 'lateCharges'] as const).map((bucket) => (
        <div className="figures__row" key={bucket}>
          <dt>{t(`servicing.bucket.${bucket}`)}</dt>
          <dd>{money(buckets[bucket])}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A value with a button that copies it (account numbers, IFSC, the payment's reference). */
export function CopyRow({ label, value, copyValue }: { label: string; value: string; copyValue?: string }) {
  const { t } = useTranslation();
  const toast = useToast();
  const copy = async () => {
    try {
      // What is shown may be grouped for reading ("8808 4678 …"); what is copied is what a bank app takes.
      await navigator.clipboard.writeText(copyValue ?? value);
      toast(t('servicing.copied', { label }), { kind: 'success' });
    } catch {
      toast(t('servicing.copyFailed'), { kind: 'error' });
    }
  };
  // A group of a <dl className="copy-list">: the term, its value, and the copy button as a description of its own.
  return (
    <div className="copy-row">
      <dt className="copy-row__label">{label}</dt>
      <dd className="copy-row__value">{value}</dd>
      <dd className="copy-row__action">
        <button type="button" className="copy-row__button" aria-label={t('servicing.copy', { label })} onClick={() => void copy()}>
          {t('servicing.copyShort')}
        </button>
      </dd>
    </div>
  );
}
