import { Button } from 'antd-mobile';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { useMarket } from '@/shared/market/market-context';
import type { Repayment } from '../../api/repayment';
import { normalUtr, useCorrectUtr } from '../../api/submit-utr';
import { TextField } from '../../ui/text-field';
import { formatDate } from '../products/format';
import { useMoney } from '../loan-money';
import './money.css';

type Arrears = NonNullable<Repayment['arrears']>;
type CoolingOff = NonNullable<Repayment['coolingOff']>;
type VerifyingPayment = NonNullable<Repayment['verifyingPayment']>;

/**
 * An overdue loan, first on its page: which installment is how many days late, the amount in its parts (the
 * installments and the late charge posted), and what changes tomorrow, every figure from the server's money engine.
 */
export function ArrearsCard({ arrears, payTo, payAmount }: { arrears: Arrears; payTo: string | null; payAmount: number | null }) {
  const { t } = useTranslation();
  const money = useMoney();
  const market = useMarket();
  const many = arrears.installmentTo !== arrears.installment;
  const tomorrow =
    arrears.lateChargeTomorrow > 0
      ? t('money.arrears.grows', { amount: money(arrears.lateChargeTomorrow), most: money(arrears.lateChargeMoreAtMost) })
      : arrears.lateChargeMoreAtMost > 0
        ? t('money.arrears.notTomorrow', { most: money(arrears.lateChargeMoreAtMost) })
        : t('money.arrears.stays');
  return (
    <section className="card arrears" aria-labelledby="arrears-head">
      <h2 className="arrears__title" id="arrears-head">
        {t(many ? 'money.arrears.lateMany' : 'money.arrears.late', {
          from: arrears.installment,
          to: arrears.installmentTo,
          count: arrears.daysLate,
        })}
      </h2>
      <p className="kfs__note">{t('money.arrears.dueOn', { date: formatDate(arrears.dueDate, market) })}</p>
      <dl className="figures">
        <div className="figures__row">
          <dt>{t(many ? 'money.arrears.owedMany' : 'money.arrears.owed')}</dt>
          <dd>{money(arrears.owed)}</dd>
        </div>
        {arrears.lateCharges > 0 && (
          <div className="figures__row">
            <dt>{t('money.arrears.lateCharge')}</dt>
            <dd>+ {money(arrears.lateCharges)}</dd>
          </div>
        )}
        <div className="figures__row figures__row--total">
          <dt>{t('money.arrears.total')}</dt>
          <dd>{money(arrears.total)}</dd>
        </div>
      </dl>
      <p className="arrears__tomorrow">{tomorrow}</p>
      {payTo && payAmount !== null && (
        <Link className="adm-button adm-button-primary adm-button-block adm-button-large servicing__link-button" to={payTo}>
          {t('money.arrears.pay', { amount: money(payAmount) })}
        </Link>
      )}
    </section>
  );
}

/** The cooling-off exit in its parts (principal + the days' interest − the fees given back − what was repaid) and its last day. */
export function CoolingOffCard({ offer }: { offer: CoolingOff }) {
  const { t } = useTranslation();
  const money = useMoney();
  const market = useMarket();
  return (
    <section className="card cooling-off" aria-labelledby="cooling-off-head">
      <h2 className="kfs__heading" id="cooling-off-head">
        {t('money.coolingOff.title')}
      </h2>
      <p className="cooling-off__until">{t('money.coolingOff.until', { date: formatDate(offer.openUntil, market) })}</p>
      <dl className="figures">
        <div className="figures__row">
          <dt>{t('money.coolingOff.principal')}</dt>
          <dd>{money(offer.principal)}</dd>
        </div>
        <div className="figures__row">
          <dt>{t('money.coolingOff.interest', { count: offer.daysUsed })}</dt>
          <dd>+ {money(offer.interest)}</dd>
        </div>
        {offer.feesRefunded > 0 && (
          <div className="figures__row">
            <dt>{t('money.coolingOff.refunded')}</dt>
            <dd>− {money(offer.feesRefunded)}</dd>
          </div>
        )}
        {offer.repaid > 0 && (
          <div className="figures__row">
            <dt>{t('money.coolingOff.repaid')}</dt>
            <dd>− {money(offer.repaid)}</dd>
          </div>
        )}
        <div className="figures__row figures__row--total">
          <dt>{t('money.coolingOff.total')}</dt>
          <dd>{money(offer.amount)}</dd>
        </div>
      </dl>
    </section>
  );
}

/** A UTR in groups of four, as it reads on a bank receipt. */
export function groupedUtr(utr: string): string {
  return utr.replace(/(.{4})(?=.)/g, '$1 ');
}

/**
 * A UTR waiting for finance: the UTR and the amount, the day finance checks it by, and the correction of a mistyped
 * UTR while finance has not acted (the server refuses it after, with its reason).
 */
export function VerifyingCard({ payment, orderNo }: { payment: VerifyingPayment; orderNo: string }) {
  const { t } = useTranslation();
  const money = useMoney();
  const market = useMarket();
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  return (
    <section className="card verifying" aria-labelledby="verifying-head">
      <h2 className="kfs__heading" id="verifying-head">
        {t('servicing.verifyingShort')}
      </h2>
      <p className="verifying__got">{t('money.verifying.got', { utr: groupedUtr(payment.utr), amount: money(payment.amount) })}</p>
      <p className="kfs__note">{t('money.verifying.checkBy', { date: formatDate(payment.checkBy, market) })}</p>
      {saved && (
        <p className="verifying__saved" role="status">
          {t('money.verifying.saved', { utr: groupedUtr(saved) })}
        </p>
      )}
      {payment.correctionsLeft <= 0 ? (
        <p className="kfs__note">{t('money.verifying.noMore')}</p>
      ) : editing ? (
        <UtrCorrection
          payment={payment}
          orderNo={orderNo}
          onDone={(utr) => {
            setEditing(false);
            setSaved(utr);
          }}
          onCancel={() => setEditing(false)}
        />
      ) : (
        <Button
          block
          fill="outline"
          onClick={() => {
            setSaved(null);
            setEditing(true);
          }}
        >
          {t('money.verifying.change')}
        </Button>
      )}
    </section>
  );
}

function UtrCorrection({
  payment,
  orderNo,
  onDone,
  onCancel,
}: {
  payment: VerifyingPayment;
  orderNo: string;
  onDone: (utr: string) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const correct = useCorrectUtr(payment.paymentId, orderNo);
  const [utr, setUtr] = useState('');
  const [checked, setChecked] = useState(false);
  const valid = normalUtr(payment.method, utr);
  const hint = payment.method === 'upi' ? t('servicing.utr.upiRule') : t('servicing.utr.bankRule');
  const error = correct.error && correct.error.status !== 401 ? correct.error : null;
  const fieldError =
    checked && !valid ? hint : (error?.fields.utr ?? (error?.code === 'utr_already_used' ? t('servicing.utr.used') : undefined));
  const otherProblem = error && !error.fields.utr && error.code !== 'utr_already_used' ? error : null;
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setChecked(true);
    if (!valid) return;
    correct.mutate(valid, { onSuccess: (saved) => onDone(saved.utr ?? valid) });
  };
  return (
    <form className="utr-correction" aria-label={t('money.verifying.change')} onSubmit={onSubmit} noValidate>
      <TextField
        id="utr-correction"
        label={t('money.verifying.label')}
        value={utr}
        onChange={(value) => {
          setUtr(value);
          correct.reset();
        }}
        error={fieldError ?? undefined}
        placeholder={hint}
        autoComplete="off"
        maxLength={22}
      />
      <p className="kfs__note">{t('money.verifying.left', { count: payment.correctionsLeft })}</p>
      {otherProblem && (
        <p className="servicing__problem" role="alert">
          {errorText(otherProblem, t)}
        </p>
      )}
      <Button block color="primary" type="submit" loading={correct.isPending}>
        {t('money.verifying.save')}
      </Button>
      <Button block fill="none" onClick={onCancel}>
        {t('money.verifying.cancel')}
      </Button>
    </form>
  );
}
