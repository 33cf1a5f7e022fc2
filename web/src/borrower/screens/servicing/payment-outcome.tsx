import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useOrder } from '../../api/orders';
import { useLoanPayments, type Payment } from '../../api/payment';
import { useMarket } from '@/shared/market/market-context';
import { formatDate } from '../products/format';
import { useMoney } from '../loan-money';

const CLOSED = ['repaid', 'exited_in_cooling_off'];

/**
 * What happened to the money of a payment once it arrived, when that is not simply "confirmed as asked": an amount
 * that differed, or came after its price held, and that finance is checking (`held`), money owed back and why (`refund_due`), money sent back with
 * the bank's reference (`refunded`), or a part payment finance credited (`confirmed` with less than asked).
 */
export function PaymentOutcome({ payment }: { payment: Payment }) {
  const { t } = useTranslation();
  const money = useMoney();
  const market = useMarket();
  const { amount } = payment;
  const received = payment.receivedAmount ?? null;
  const refund = payment.refundAmount ?? null;
  const values = { asked: money(amount), received: received === null ? '' : money(received), refund: money(refund ?? 0) };

  let text: string | null = null;
  let toPlan = false;
  switch (payment.status) {
    case 'held':
      if (received === null) {
        text = t('servicing.paymentOutcome.heldUnknown', values);
      } else if (received !== amount) {
        text = t('servicing.paymentOutcome.heldReceived', values);
      } else if (payment.choice === 'cooling_off') {
        text = t('servicing.paymentOutcome.heldExit', values);
      } else {
        text = t('servicing.paymentOutcome.heldLate', { ...values, date: formatDate(payment.pricedOn, market) });
      }
      break;
    case 'refund_due':
      if (refund === null) break;
      if (received !== null && refund < received) {
        text = t('servicing.paymentOutcome.refundExcess', { ...values, credited: money(received - refund) });
      } else {
        return <WholeRefund payment={payment} refund={values.refund} />;
      }
      break;
    case 'refunded':
      if (refund === null) break;
      text = payment.refundReference
        ? t('servicing.paymentOutcome.refunded', { ...values, reference: payment.refundReference })
        : t('servicing.paymentOutcome.refundedNoReference', values);
      break;
    case 'confirmed':
      if (received === null || received === amount) break;
      toPlan = received < amount;
      text = t(toPlan ? 'servicing.paymentOutcome.partCredited' : 'servicing.paymentOutcome.otherCredited', values);
      break;
    default:
      break;
  }
  if (!text) return null;
  return (
    <>
      <p className="payment-outcome">{text}</p>
      {toPlan && (
        <Link className="order__agreement" to={`/orders/${encodeURIComponent(payment.orderNo)}/plan`}>
          {t('servicing.repay.plan')}
        </Link>
      )}
    </>
  );
}

/**
 * The i18n key of the payment's status line. Money held although it is the amount asked was held because its price no
 * longer held (sent days after it was priced, or a cooling-off exit after the window): it does not say the amount
 * differs.
 */
export function paymentStatusKey(payment: Payment): string {
  if (payment.status === 'held' && payment.receivedAmount === payment.amount) return 'servicing.paymentStatus.heldPriced';
  return `servicing.paymentStatus.${payment.status}`;
}

/**
 * All the money is owed back: because the loan was already repaid (it owed nothing), or because finance decided not to
 * count an amount that differed. The loan's status tells which.
 */
function WholeRefund({ payment, refund }: { payment: Payment; refund: string }) {
  const { t } = useTranslation();
  const order = useOrder(payment.orderNo);
  // Until the loan is read (or when it cannot be), the money move is said without its reason rather than a wrong one.
  const key = !order.data
    ? 'servicing.paymentOutcome.refundWhole'
    : CLOSED.includes(order.data.status)
      ? 'servicing.paymentOutcome.refundClosed'
      : 'servicing.paymentOutcome.refundDecided';
  return <p className="payment-outcome">{t(key, { refund })}</p>;
}

/** True when [`PaymentOutcome`] has something to say about the payment. */
function hasOutcome(payment: Payment): boolean {
  switch (payment.status) {
    case 'held':
      return true;
    case 'refund_due':
    case 'refunded':
      return payment.refundAmount != null;
    case 'confirmed':
      return payment.receivedAmount != null && payment.receivedAmount !== payment.amount;
    default:
      return false;
  }
}

/**
 * On the loan's page: the payments whose money did something other than what was asked (held for finance, owed back,
 * sent back, credited in part), each with its outcome. Nothing when there is none, or while it loads.
 */
export function LoanPayments({ orderNo }: { orderNo: string }) {
  const { t } = useTranslation();
  const money = useMoney();
  const payments = useLoanPayments(orderNo);
  const told = (payments.data ?? []).filter(hasOutcome);
  if (told.length === 0) return null;
  return (
    <section className="card" aria-labelledby="loan-payments">
      <h2 className="kfs__heading" id="loan-payments">
        {t('servicing.loanPayments.title')}
      </h2>
      <ul className="loan-payments">
        {told.map((payment) => (
          <li key={payment.paymentId}>
            <p className="kfs__note">{t('servicing.loanPayments.asked', { amount: money(payment.amount), reference: payment.reference })}</p>
            <PaymentOutcome payment={payment} />
          </li>
        ))}
      </ul>
    </section>
  );
}
