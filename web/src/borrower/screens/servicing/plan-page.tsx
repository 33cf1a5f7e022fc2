import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { useMarket } from '@/shared/market/market-context';
import { usePlan, type LoanPlan } from '../../api/plan';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { formatDate } from '../products/format';
import { OrderMoneyProvider, useMoney } from '../loan-money';
import { InstallmentBadge, LoadFailed } from './common';
import './servicing.css';

/** The installment plan after payout: each installment's due date, what is due, paid and outstanding, its status. */
export function PlanPage() {
  const { t } = useTranslation();
  const { orderNo = '' } = useParams();
  const plan = usePlan(orderNo);
  return (
    <Screen title={t('servicing.plan.title')} backTo={`/orders/${encodeURIComponent(orderNo)}`}>
      <OrderMoneyProvider orderNo={orderNo}>
        {plan.isPending ? (
          <LoadingState />
        ) : plan.isError ? (
          <LoadFailed error={plan.error} title={t('servicing.plan.loadFailed')} onRetry={() => void plan.refetch()} />
        ) : (
          <Plan plan={plan.data} />
        )}
      </OrderMoneyProvider>
    </Screen>
  );
}

function Plan({ plan }: { plan: LoanPlan }) {
  const { t } = useTranslation();
  const market = useMarket();
  const money = useMoney();
  return (
    <div className="servicing">
      <section className="card" aria-labelledby="plan-summary">
        <h2 className="kfs__heading" id="plan-summary">
          {t('servicing.plan.summary')}
        </h2>
        {plan.verifying && (
          <p className="servicing__verifying" role="status">
            {t('servicing.verifying')}
          </p>
        )}
        <dl className="figures">
          <div className="figures__row">
            <dt>{t('servicing.plan.paidOut', { date: formatDate(plan.payoutDate, market) })}</dt>
            <dd>{money(plan.paidOut)}</dd>
          </div>
          <div className="figures__row">
            <dt>{t('servicing.plan.paid')}</dt>
            <dd>{money(plan.paid.total)}</dd>
          </div>
          <div className="figures__row figures__row--total">
            <dt>{t('servicing.plan.outstanding')}</dt>
            <dd>{money(plan.outstanding.total)}</dd>
          </div>
        </dl>
      </section>
      {plan.installments.length === 0 ? (
        <StateNotice kind="empty" title={t('servicing.plan.empty')} />
      ) : (
        <ol className="installments" aria-label={t('servicing.plan.installments')}>
          {plan.installments.map((item) => (
            <li key={item.seq} className="card installment">
              <Link className="installment__link" to={`/orders/${encodeURIComponent(plan.orderNo)}/plan/${item.seq}`}>
                <span className="installment__head">
                  <span className="installment__seq">{t('servicing.installment.number', { seq: item.seq })}</span>
                  <InstallmentBadge status={item.status} />
                </span>
                <span className="installment__row">
                  <span>{t('servicing.installment.dueOn', { date: formatDate(item.dueDate, market) })}</span>
                  <strong>{money(item.due.total)}</strong>
                </span>
                <span className="installment__row installment__row--muted">
                  <span>{t('servicing.installment.outstanding')}</span>
                  <span>{money(item.outstanding.total)}</span>
                </span>
                {item.verifying && item.status !== 'paid' && <span className="installment__verifying">{t('servicing.verifyingShort')}</span>}
              </Link>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
