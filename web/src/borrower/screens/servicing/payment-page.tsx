import { Button } from 'antd-mobile';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useParams } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { useMarket } from '@/shared/market/market-context';
import { sessionStorageOrNull } from '../../boot';
import { forgetPaymentKey } from '../../api/idempotency-key';
import { useOrder } from '../../api/orders';
import { usePayment, type Payment } from '../../api/payment';
import { normalUtr, useSubmitUtr } from '../../api/submit-utr';
import { Screen } from '../../layout/screen';
import { LoadingState } from '../../ui/state-notice';
import { TextField } from '../../ui/text-field';
import { formatDate } from '../products/format';
import { useRepayment } from '../../api/repayment';
import { OrderMoneyProvider, useMoney } from '../loan-money';
import { CopyRow, LoadFailed } from './common';
import { VerifyingCard } from './money-state';
import { VirtualAccountHelp, digitsOnly, groupedDigits } from './virtual-account';
import { PaymentOutcome, paymentStatusKey } from './payment-outcome';
import { paymentScreen } from './payment-screen';
import './servicing.css';

/** One payment: how to pay it (UPI, bank transfer with its reference, or the virtual account), then its UTR. */
export function PaymentPage() {
  const { t } = useTranslation();
  const { paymentId = '' } = useParams();
  const payment = usePayment(paymentId);
  const backTo = payment.data ? `/orders/${encodeURIComponent(payment.data.orderNo)}` : '/orders';
  // Drawn once, whole (as the loan's page): a UTR waiting for finance has its card under the payment, from the loan's
  // repayment answer; it is asked beside the loan (for its amounts) as soon as the payment names them, and the page
  // waits for its first answer. One that failed leaves the card out and is not waited for again. A payment whose UTR
  // can still be sent asks it too, without waiting: sending the UTR then refreshes it (`useSubmitUtr`) before the page
  // turns to "verifying", so the card comes with the new status and the page never goes back to "Loading…".
  const orderNo = payment.data?.orderNo ?? '';
  const verifying = payment.data?.status === 'verifying';
  useOrder(orderNo, { enabled: orderNo !== '' });
  const repayment = useRepayment(orderNo, { enabled: verifying || (payment.data !== undefined && takesUtr(payment.data)) });
  return (
    <Screen title={t('servicing.payment.title')} backTo={backTo}>
      {payment.isPending || (verifying && !repayment.isFetched) ? (
        <LoadingState />
      ) : payment.isError ? (
        <LoadFailed error={payment.error} title={t('servicing.payment.loadFailed')} onRetry={() => void payment.refetch()} />
      ) : payment.data.method === 'dragonpay' ? (
        <Navigate to={paymentScreen(payment.data)} replace />
      ) : (
        <OrderMoneyProvider orderNo={payment.data.orderNo}>
          <PaymentDetails payment={payment.data} />
        </OrderMoneyProvider>
      )}
    </Screen>
  );
}

function PaymentDetails({ payment }: { payment: Payment }) {
  const { t } = useTranslation();
  const money = useMoney();
  const market = useMarket();
  const orderLink = `/orders/${encodeURIComponent(payment.orderNo)}`;
  return (
    <div className="servicing">
      <section className="card" aria-labelledby="payment-head">
        <h2 className="kfs__heading" id="payment-head">
          {t(`servicing.choice.${payment.choice}`)}
        </h2>
        <p className="servicing__big">{money(payment.amount)}</p>
        <p className="kfs__note">{t('servicing.payment.pricedOn', { date: formatDate(payment.pricedOn, market) })}</p>
        <p className={`payment-status payment-status--${payment.status}`} role="status">
          {t(paymentStatusKey(payment))}
        </p>
        {payment.status === 'rejected' && payment.reason && <p className="order__reason">{payment.reason}</p>}
        <PaymentOutcome payment={payment} />
      </section>
      {payment.status === 'pending' && <Instructions payment={payment} />}
      {takesUtr(payment) && <UtrForm payment={payment} />}
      {payment.status === 'verifying' && <VerifyingOnPayment payment={payment} />}
      {payment.status === 'rejected' && (
        <Link
          className="adm-button adm-button-primary adm-button-block adm-button-large servicing__link-button"
          to={orderLink}
          onClick={() =>
            forgetPaymentKey(
              { orderNo: payment.orderNo, choice: payment.choice, method: payment.method, amount: payment.amount, today: payment.pricedOn },
              sessionStorageOrNull(),
            )
          }
        >
          {t('servicing.payment.again')}
        </Link>
      )}
      <Link className="order__agreement" to={orderLink}>
        {t('servicing.payment.toLoan')}
      </Link>
    </div>
  );
}

/** The borrower sends this payment's UTR here: a UPI or bank transfer not yet paid (a virtual account's or
 * Dragonpay's money comes with the provider's callback). */
function takesUtr(payment: Payment): boolean {
  return payment.status === 'pending' && (payment.method === 'upi' || payment.method === 'bank_transfer');
}

function Instructions({ payment }: { payment: Payment }) {
  const { t } = useTranslation();
  const money = useMoney();
  const how = payment.instructions;
  return (
    <section className="card" aria-labelledby="payment-how">
      <h2 className="kfs__heading" id="payment-how">
        {t(`servicing.how.${payment.method}`, { amount: money(payment.amount) })}
      </h2>
      <dl className="copy-list">
        <CopyRow label={t('servicing.field.amount')} value={money(payment.amount)} />
        {how.payeeName && (
          <CopyRow label={payment.method === 'virtual_account' ? t('money.va.payee') : t('servicing.field.payee')} value={how.payeeName} />
        )}
        {how.upiId && <CopyRow label={t('servicing.field.upiId')} value={how.upiId} />}
        {how.accountNumber && <CopyRow label={t('servicing.field.accountNumber')} value={how.accountNumber} />}
        {how.ifsc && <CopyRow label={t('servicing.field.ifsc')} value={how.ifsc} />}
        {how.bankName && <CopyRow label={t('servicing.field.bank')} value={how.bankName} />}
        {how.bankCode && <CopyRow label={t('servicing.field.bank')} value={how.bankCode} />}
        {how.virtualAccount && (
          <CopyRow label={t('money.va.number')} value={groupedDigits(how.virtualAccount)} copyValue={digitsOnly(how.virtualAccount)} />
        )}
        {payment.method !== 'virtual_account' && <CopyRow label={t('servicing.field.reference')} value={payment.reference} />}
      </dl>
      {how.collectsFor && <p className="va-note">{t('money.va.collectsFor', { payee: how.payeeName, lender: how.collectsFor })}</p>}
      {payment.method !== 'virtual_account' && <p className="kfs__note">{t('servicing.how.referenceNote')}</p>}
      {payment.method === 'virtual_account' && how.virtualAccount && <VirtualAccountHelp payment={payment} />}
      {how.upiUri && (
        <a className="adm-button adm-button-primary adm-button-fill-outline adm-button-block servicing__link-button" href={how.upiUri}>
          {t('servicing.how.openUpi')}
        </a>
      )}
    </section>
  );
}

function UtrForm({ payment }: { payment: Payment }) {
  const { t } = useTranslation();
  const submit = useSubmitUtr(payment.paymentId);
  const [utr, setUtr] = useState('');
  const [checked, setChecked] = useState(false);
  const valid = normalUtr(payment.method, utr);
  const hint = payment.method === 'upi' ? t('servicing.utr.upiRule') : t('servicing.utr.bankRule');
  const serverError = submit.error?.fields.utr ?? null;
  const fieldError = checked && !valid ? hint : (serverError ?? (submit.error?.code === 'utr_already_used' ? t('servicing.utr.used') : undefined));
  const otherProblem = submit.error && !submit.error.fields.utr && submit.error.code !== 'utr_already_used' && submit.error.status !== 401 ? submit.error : null;
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setChecked(true);
    if (!valid) return;
    submit.mutate(valid);
  };
  return (
    <form className="card utr" aria-labelledby="utr-head" onSubmit={onSubmit} noValidate>
      <h2 className="kfs__heading" id="utr-head">
        {t('servicing.utr.title')}
      </h2>
      <p className="kfs__note">{t('servicing.utr.text')}</p>
      <TextField
        id="utr"
        label={t('servicing.utr.label')}
        value={utr}
        onChange={(value) => {
          setUtr(value);
          submit.reset();
        }}
        error={fieldError ?? undefined}
        placeholder={hint}
        autoComplete="off"
        maxLength={22}
      />
      {otherProblem && (
        <p className="servicing__problem" role="alert">
          {otherProblem.code === 'payment_not_open' ? t('servicing.utr.notOpen') : errorText(otherProblem, t)}
        </p>
      )}
      <Button block color="primary" size="large" type="submit" loading={submit.isPending}>
        {t('servicing.utr.submit')}
      </Button>
    </form>
  );
}

/** A UTR waiting for finance: what was sent, by when it is checked, and its correction, as on the loan's page. */
function VerifyingOnPayment({ payment }: { payment: Payment }) {
  const repayment = useRepayment(payment.orderNo);
  const waiting = repayment.data?.verifyingPayment;
  if (!waiting || waiting.paymentId !== payment.paymentId) return null;
  return <VerifyingCard payment={waiting} orderNo={payment.orderNo} />;
}
