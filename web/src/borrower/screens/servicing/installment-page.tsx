import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { useMarket } from '@/shared/market/market-context';
import { useInstallment } from '../../api/installment';
import type { InstallmentPlan } from '../../api/plan';
import { useRepayment } from '../../api/repayment';
import { Screen } from '../../layout/screen';
import { LoadingState } from '../../ui/state-notice';
import { OrderNotFound } from '../orders/order-not-found';
import { formatDate } from '../products/format';
import { OrderMoneyProvider, useMoney } from '../loan-money';
import { BucketFigures, InstallmentBadge, LoadFailed } from './common';
import './servicing.css';

/**
 * One installment: what is still to pay on it (or what was paid, once settled) with its split, its due date (and the
 * planned one if an extension moved it), and the way to pay it.
 */
export function InstallmentPage() {
  const { t } = useTranslation();
  const { orderNo = '', seq = '' } = useParams();
  const number = /^[1-9]\d{0,3}$/.test(seq) ? Number(seq) : 0;
  const installment = useInstallment(orderNo, number);
  return (
    <Screen title={t('servicing.installment.title', { seq: number || seq })} backTo={`/orders/${encodeURIComponent(orderNo)}/plan`}>
      {number === 0 ? (
        <OrderNotFound />
      ) : (
        <OrderMoneyProvider orderNo={orderNo}>
          {installment.isPending ? (
            <LoadingState />
          ) : installment.isError ? (
            <LoadFailed error={installment.error} title={t('servicing.installment.loadFailed')} onRetry={() => void installment.refetch()} />
          ) : (
            <Installment item={installment.data} orderNo={orderNo} />
          )}
        </OrderMoneyProvider>
      )}
    </Screen>
  );
}

function Installment({ item, orderNo }: { item: InstallmentPlan; orderNo: string }) {
  const { t } = useTranslation();
  const market = useMarket();
  const money = useMoney();
  const left = item.outstanding.total > 0;
  // Part paid: what was due, what came in and what is left, in one sentence.
  const partPaid = left && item.paid.total > 0;
  return (
    <div className="servicing">
      <section className="card" aria-labelledby="installment-head">
        <div className="installment__head">
          <h2 className="installment__seq" id="installment-head">
            {t('servicing.installment.number', { seq: item.seq })}
          </h2>
          <InstallmentBadge status={item.status} />
        </div>
        <p className="installment__label">
          {t(left ? 'servicing.installment.left' : 'servicing.installment.paid')}
        </p>
        <p className="servicing__big">
          {money(left ? item.outstanding.total : item.paid.total)}
        </p>
        {partPaid && (
          <p className="kfs__note">
            {t('servicing.installment.outstandingOf', {
              paid: money(item.paid.total),
              total: money(item.due.total),
              left: money(item.outstanding.total),
            })}
          </p>
        )}
        <BucketFigures buckets={left ? item.outstanding : item.paid} />
        <dl className="figures installment__dates">
          <div className="figures__row">
            <dt>{t('servicing.installment.dueDate')}</dt>
            <dd>{formatDate(item.dueDate, market)}</dd>
          </div>
          {item.plannedDueDate !== item.dueDate && (
            <div className="figures__row">
              <dt>{t('servicing.installment.plannedDueDate')}</dt>
              <dd>{formatDate(item.plannedDueDate, market)}</dd>
            </div>
          )}
        </dl>
        {item.verifying && item.status !== 'paid' && (
          <p className="servicing__verifying" role="status">
            {t('servicing.verifying')}
          </p>
        )}
        {left && <PayDue orderNo={orderNo} item={item} />}
      </section>
    </div>
  );
}

/**
 * Paying this installment: the loan page's "pay what is due" (the same choice, the same amount), while the loan is open,
 * no payment is being checked, and that choice pays this installment (it pays the oldest unpaid first, up to its date).
 */
function PayDue({ orderNo, item }: { orderNo: string; item: InstallmentPlan }) {
  const { t } = useTranslation();
  const money = useMoney();
  const repayment = useRepayment(orderNo);
  const data = repayment.data;
  const due = data?.choices.find((choice) => choice.choice === 'due');
  const open = data && (data.status === 'disbursed' || data.status === 'overdue') && !data.verifying;
  const covers = due && due.installment !== null && due.installment <= item.seq && (due.dueDate === null || item.dueDate <= due.dueDate);
  if (!open || !due || !covers) return null;
  return (
    <Link
      className="adm-button adm-button-primary adm-button-block adm-button-large servicing__link-button"
      to={`/orders/${encodeURIComponent(orderNo)}/pay/due`}
    >
      {t('servicing.installment.pay', { amount: money(due.amount) })}
    </Link>
  );
}
