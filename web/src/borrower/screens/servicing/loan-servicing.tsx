import { Button } from 'antd-mobile';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { useMarket } from '@/shared/market/market-context';
import type { OrderDetail } from '../../api/orders';
import { usePlan, type LoanPlan } from '../../api/plan';
import { useRateOrder } from '../../api/rate-order';
import { useRepayment, type RepaymentChoiceView } from '../../api/repayment';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { formatDate } from '../products/format';
import { useMoney } from '../loan-money';
import { ArrearsCard, CoolingOffCard, VerifyingCard } from './money-state';
import './servicing.css';

/** On the loan page after payout: whether to repay, the choices with their amounts, and the plan. */
export function RepaySection({ order }: { order: OrderDetail }) {
  const { t } = useTranslation();
  const market = useMarket();
  const money = useMoney();
  const repayment = useRepayment(order.orderNo);
  const orderPath = `/orders/${encodeURIComponent(order.orderNo)}`;
  const due = repayment.data?.choices.find((choice) => choice.choice === 'due');
  const open = repayment.data && !repayment.data.verifying;
  return (
    <>
      {repayment.data?.verifyingPayment && <VerifyingCard payment={repayment.data.verifyingPayment} orderNo={order.orderNo} />}
      {repayment.data?.arrears && (
        <ArrearsCard arrears={repayment.data.arrears} payTo={open && due ? `${orderPath}/pay/due` : null} payAmount={due?.amount ?? null} />
      )}
      {repayment.data?.coolingOff && (
        <CoolingOffCard offer={repayment.data.coolingOff} />
      )}
    <section className="card repay" aria-labelledby="repay-head">
      <h2 className="kfs__heading" id="repay-head">
        {t('servicing.repay.title')}
      </h2>
      {repayment.isPending ? (
        <LoadingState />
      ) : repayment.isError ? (
        <StateNotice kind="error" title={t('servicing.repay.loadFailed')} text={errorText(repayment.error, t)} onRetry={() => void repayment.refetch()} />
      ) : (
        <>
          {repayment.data.verifying && !repayment.data.verifyingPayment && (
            <p className="servicing__verifying" role="status">
              {t('servicing.verifying')}
            </p>
          )}
          {due && !repayment.data.arrears && (
            <p className="repay__prompt">
              {t(
                due.dueDate && due.dueDate <= repayment.data.today
                  ? 'servicing.repay.dueNow'
                  : // Paid early it asks less than on its date: today's amount is never labelled with that date.
                    due.amountOnDueDate !== null && due.amountOnDueDate > due.amount
                    ? 'servicing.repay.dueNextEarly'
                    : 'servicing.repay.dueNext',
                {
                  amount: money(due.amount),
                  onDate: money(due.amountOnDueDate ?? due.amount),
                  date: due.dueDate ? formatDate(due.dueDate, market) : '',
                },
              )}
            </p>
          )}
          <p className="kfs__note">{t('servicing.repay.outstanding', { amount: money(repayment.data.outstanding) })}</p>
          {repayment.data.choices.length === 0 ? (
            <p className="kfs__note">{t('servicing.repay.none')}</p>
          ) : repayment.data.verifying ? (
            // While a submitted UTR is verified nothing else can be paid: the choices show, but cannot be chosen.
            <>
              <ul className="choices choices--verifying" aria-describedby="repay-verifying">
                {repayment.data.choices.map((choice) => (
                  <li key={choice.choice}>
                    <ChoiceRow choice={choice} />
                  </li>
                ))}
              </ul>
              <p className="kfs__note" id="repay-verifying">
                {t('servicing.repay.verifyingChoices')}
              </p>
            </>
          ) : (
            <ul className="choices">
              {repayment.data.choices.map((choice) => (
                <li key={choice.choice}>
                  <ChoiceLink orderPath={orderPath} choice={choice} />
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      <Link className="order__agreement" to={`${orderPath}/plan`}>
        {t('servicing.repay.plan')}
      </Link>
    </section>
    </>
  );
}

function ChoiceLink({ orderPath, choice }: { orderPath: string; choice: RepaymentChoiceView }) {
  const to = choice.choice === 'extension' ? `${orderPath}/extension` : `${orderPath}/pay/${choice.choice}`;
  return (
    <Link className={`choice choice--${choice.choice}`} to={to}>
      <ChoiceContent choice={choice} />
    </Link>
  );
}

/** A choice that cannot be taken now (a payment is being verified): shown, greyed, not a link. */
function ChoiceRow({ choice }: { choice: RepaymentChoiceView }) {
  return (
    <div className={`choice choice--${choice.choice} choice--disabled`} aria-disabled="true">
      <ChoiceContent choice={choice} />
    </div>
  );
}

function ChoiceContent({ choice }: { choice: RepaymentChoiceView }) {
  const { t } = useTranslation();
  const money = useMoney();
  const market = useMarket();
  return (
    <>
      <span className="choice__text">
        <span className="choice__name">{t(`servicing.choice.${choice.choice}`)}</span>
        <span className="choice__hint">
          {choice.choice === 'extension' && choice.dueDate
            ? t('servicing.choiceHint.extension', { date: formatDate(choice.dueDate, market) })
            : t(`servicing.choiceHint.${choice.choice}`)}
        </span>
      </span>
      <span className="choice__amount">{money(choice.amount)}</span>
    </>
  );
}

/** When the loan has ended: a rating, once, borrowing again, and what the borrower paid. */
export function OrderEnd({ orderNo }: { orderNo: string }) {
  return (
    <>
      <RateAndAgain orderNo={orderNo} />
      <PaidSummary orderNo={orderNo} />
    </>
  );
}

/**
 * What the loan cost in the end, bucket by bucket, from the plan the server replays from the ledger: the fee taken from
 * the payout counts as paid (the borrower received that much less); after a cooling-off exit only the principal and the
 * days' interest, with the fees taken at payout given back.
 */
function PaidSummary({ orderNo }: { orderNo: string }) {
  const { t } = useTranslation();
  const plan = usePlan(orderNo);
  return (
    <section className="card" aria-labelledby="paid-head">
      <h2 className="kfs__heading" id="paid-head">
        {t('servicing.paid.title')}
      </h2>
      {plan.isPending ? (
        <LoadingState />
      ) : plan.isError ? (
        <StateNotice kind="error" title={t('servicing.plan.loadFailed')} text={errorText(plan.error, t)} onRetry={() => void plan.refetch()} />
      ) : (
        <PaidFigures plan={plan.data} />
      )}
    </section>
  );
}

function PaidFigures({ plan }: { plan: LoanPlan }) {
  const { t } = useTranslation();
  const money = useMoney();
  const { paid } = plan;
  // The fee kept at payout is in no bucket of the plan: the borrower paid it out of the payout, unless a cooling-off
  // exit gave it back (netted from what the borrower sent). The server answers both and the total.
  const payoutFee = plan.feesKept;
  const refunded = plan.feesRefunded;
  return (
    <dl className="figures">
      <div className="figures__row">
        <dt>{t('servicing.paid.principal')}</dt>
        <dd>{money(paid.principal)}</dd>
      </div>
      <div className="figures__row">
        <dt>{t('servicing.paid.interest')}</dt>
        <dd>{money(paid.interest)}</dd>
      </div>
      <div className="figures__row">
        <dt>{t('servicing.paid.charges')}</dt>
        <dd>{money(paid.fees + paid.lateCharges)}</dd>
      </div>
      {payoutFee > 0 && (
        <div className="figures__row">
          <dt>{t('servicing.paid.payoutFee')}</dt>
          <dd>{money(payoutFee)}</dd>
        </div>
      )}
      {refunded > 0 && (
        <div className="figures__row">
          <dt>{t('servicing.paid.refunded')}</dt>
          <dd>{money(-refunded)}</dd>
        </div>
      )}
      <div className="figures__row figures__row--total">
        <dt>{t('servicing.paid.total')}</dt>
        <dd>{money(plan.paidInAll)}</dd>
      </div>
    </dl>
  );
}

function RateAndAgain({ orderNo }: { orderNo: string }) {
  const { t } = useTranslation();
  const rate = useRateOrder(orderNo);
  const [score, setScore] = useState(0);
  const rated = rate.isSuccess || rate.error?.code === 'already_rated';
  const problem = rate.error && rate.error.code !== 'already_rated' && rate.error.status !== 401 ? rate.error : null;
  return (
    <section className="card order-end" aria-labelledby="order-end">
      <h2 className="kfs__heading" id="order-end">
        {t('servicing.end.title')}
      </h2>
      {rated ? (
        <p role="status">{t('servicing.end.thanks')}</p>
      ) : (
        <>
          <p className="kfs__note" id="rate-label">
            {t('servicing.end.ask')}
          </p>
          <div className="order-end__stars" role="radiogroup" aria-labelledby="rate-label">
            {[1, 2, 3, 4, 5].map((value) => (
              <button
                key={value}
                type="button"
                role="radio"
                aria-checked={score === value}
                aria-label={t('servicing.end.stars', { count: value })}
                className={value <= score ? 'star star--on' : 'star'}
                onClick={() => setScore(value)}
              >
                ★
              </button>
            ))}
          </div>
          {problem && (
            <p className="servicing__problem" role="alert">
              {errorText(problem, t)}
            </p>
          )}
          <Button block color="primary" fill="outline" disabled={score === 0} loading={rate.isPending} onClick={() => rate.mutate(score)}>
            {t('servicing.end.send')}
          </Button>
        </>
      )}
      <Link className="adm-button adm-button-primary adm-button-block adm-button-large servicing__link-button" to="/products">
        {t('servicing.end.again')}
      </Link>
      <Link className="order__agreement" to={`/orders/${encodeURIComponent(orderNo)}/plan`}>
        {t('servicing.repay.plan')}
      </Link>
    </section>
  );
}
