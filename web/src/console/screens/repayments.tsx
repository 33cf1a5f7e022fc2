import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { useConfirmPayment, usePaymentsQueue, useRejectPayment } from '../api/finance';
import type { QueuedPayment } from '../api/types';
import { majorFromMinor, minorFromMajor } from '@/shared/money/major-units';
import { dateTime, marketName, money } from '../format';
import { consolePaths } from '../paths';
import { LoadFailed, Loading } from './states';

/** The same limit as the server's: the borrower reads the reason. */
export const MAX_REJECT_REASON = 500;

/** Finance's queue: submitted UTRs and held payments, oldest first, each with the loan's outstanding amount. */
export function RepaymentsScreen() {
  const { t } = useTranslation();
  const queue = usePaymentsQueue();
  const [notice, setNotice] = useState<string | null>(null);

  return (
    <section>
      <div className="page-head">
        <h1>{t('repayments.title')}</h1>
      </div>
      {notice && (
        <p role="status" className="notice notice--success">
          {notice}
        </p>
      )}
      {queue.isPending ? (
        <Loading label={t('repayments.loading')} />
      ) : queue.isError ? (
        <LoadFailed error={queue.error} onRetry={() => void queue.refetch()} />
      ) : queue.data.length === 0 ? (
        <p className="empty">{t('repayments.empty')}</p>
      ) : (
        <ul className="payment-list" aria-label={t('repayments.caption', { count: queue.data.length })}>
          {queue.data.map((item) => (
            <PaymentItem key={item.payment.paymentId} item={item} onDone={setNotice} />
          ))}
        </ul>
      )}
    </section>
  );
}

function PaymentItem({ item, onDone }: { item: QueuedPayment; onDone: (text: string) => void }) {
  const { t } = useTranslation();
  const { payment, currency } = item;
  const confirm = useConfirmPayment();
  const reject = useRejectPayment();
  const [mode, setMode] = useState<'idle' | 'confirm' | 'reject'>('idle');
  const [amount, setAmount] = useState(majorFromMinor(payment.amount));
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [checked, setChecked] = useState<number | null>(null);
  const held = payment.status === 'held';
  const id = payment.paymentId;

  const checkAmount = (event: FormEvent) => {
    event.preventDefault();
    const minor = minorFromMajor(amount, { grouping: true });
    if (minor === null || minor <= 0) return setError(t('repayments.amountInvalid'));
    setError(null);
    confirm.reset();
    setChecked(minor);
  };
  const sendConfirm = () => {
    if (checked === null) return;
    confirm.mutate(
      { paymentId: id, amount: checked },
      {
        onSuccess: (done) =>
          onDone(
            done.payment.status === 'held'
              ? t('repayments.heldDone', { reference: payment.reference, amount: money(checked, currency) })
              : t('repayments.confirmedDone', { reference: payment.reference, amount: money(checked, currency) }),
          ),
        onError: () => setChecked(null),
      },
    );
  };
  const sendReject = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = reason.trim();
    if (!trimmed) return setError(t('repayments.reasonRequired'));
    if ([...trimmed].length > MAX_REJECT_REASON) return setError(t('repayments.reasonTooLong', { max: MAX_REJECT_REASON }));
    setError(null);
    reject.mutate({ paymentId: id, reason: trimmed }, { onSuccess: () => onDone(t('repayments.rejectedDone', { reference: payment.reference })) });
  };
  const failure = confirm.error ?? reject.error;
  const fieldError = error ?? confirm.error?.fields.amount ?? reject.error?.fields.reason ?? null;

  return (
    <li className="panel payment" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>
        <Link to={consolePaths.order(payment.orderNo)}>{payment.orderNo}</Link> · {payment.reference}{' '}
        {held && <span className="badge badge--warn">{t('repayments.held')}</span>}
      </h2>
      <dl className="facts facts--compact">
        {(
          [
            [t('repayments.amount'), money(payment.amount, currency)],
            [t('repayments.outstanding'), money(item.outstanding, currency)],
            [t('repayments.utr'), payment.utr ?? '—'],
            [
              t('repayments.method'),
              `${t(`repayments.methods.${payment.method}`, { defaultValue: payment.method })} · ${t(`repayments.choices.${payment.choice}`, { defaultValue: payment.choice })}`,
            ],
            [t('repayments.market'), marketName(item.market, t)],
            [t('repayments.created'), dateTime(payment.createdAt)],
          ] as const
        ).map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {held && <p className="muted">{t('repayments.heldHint')}</p>}
      {failure && !fieldError && (
        <p role="alert" className="notice notice--error">
          {failure.code === 'payment_not_open' ? t('repayments.notOpen') : errorText(failure, t)}
        </p>
      )}
      {mode === 'idle' && (
        <div className="actions">
          <button type="button" className="button button--primary" onClick={() => setMode('confirm')}>
            {t('repayments.confirm')}
          </button>
          <button type="button" className="button button--danger" onClick={() => setMode('reject')}>
            {t('repayments.reject')}
          </button>
        </div>
      )}
      {mode === 'confirm' &&
        (checked === null ? (
          <form onSubmit={checkAmount} noValidate>
            <div className="field">
              <label htmlFor={`${id}-amount`}>{t('repayments.received', { currency })}</label>
              <input
                id={`${id}-amount`}
                inputMode="decimal"
                value={amount}
                aria-invalid={fieldError ? true : undefined}
                aria-describedby={`${id}-amount-hint`}
                onChange={(event) => setAmount(event.target.value)}
              />
              <p className={fieldError ? 'field-error' : 'muted'} id={`${id}-amount-hint`}>
                {fieldError ?? t('repayments.receivedHint')}
              </p>
            </div>
            <div className="actions">
              <button type="submit" className="button button--primary">{t('repayments.continue')}</button>
              <button type="button" className="button button--quiet" onClick={() => setMode('idle')}>{t('repayments.cancel')}</button>
            </div>
          </form>
        ) : (
          <div role="group" aria-labelledby={`${id}-confirm`}>
            <p id={`${id}-confirm`}>
              <strong>
                {checked === payment.amount
                  ? t('repayments.confirmText', { amount: money(checked, currency), reference: payment.reference })
                  : t('repayments.confirmDifferent', { amount: money(checked, currency), expected: money(payment.amount, currency) })}
              </strong>
            </p>
            <div className="actions">
              <button type="button" className="button button--primary" onClick={sendConfirm} disabled={confirm.isPending}>
                {t('repayments.confirmButton', { amount: money(checked, currency) })}
              </button>
              <button type="button" className="button button--quiet" onClick={() => setChecked(null)} disabled={confirm.isPending}>
                {t('repayments.back')}
              </button>
            </div>
          </div>
        ))}
      {mode === 'reject' && (
        <form onSubmit={sendReject} noValidate>
          <div className="field">
            <label htmlFor={`${id}-reason`}>{t('repayments.reason')}</label>
            <textarea
              id={`${id}-reason`}
              rows={2}
              value={reason}
              aria-invalid={fieldError ? true : undefined}
              aria-describedby={`${id}-reason-hint`}
              onChange={(event) => setReason(event.target.value)}
            />
            <p className={fieldError ? 'field-error' : 'muted'} id={`${id}-reason-hint`}>
              {fieldError ?? t('repayments.reasonHint', { max: MAX_REJECT_REASON })}
            </p>
          </div>
          <div className="actions">
            <button type="submit" className="button button--danger" disabled={reject.isPending}>{t('repayments.rejectButton')}</button>
            <button type="button" className="button button--quiet" onClick={() => setMode('idle')}>{t('repayments.cancel')}</button>
          </div>
        </form>
      )}
    </li>
  );
}
