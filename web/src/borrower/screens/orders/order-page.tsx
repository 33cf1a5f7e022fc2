import { Button, Dialog } from 'antd-mobile';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useParams } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { ApiError } from '@/shared/api/http';
import { useMarket } from '@/shared/market/market-context';
import { formatApr } from '@/shared/money/format-percent';
import { useCancelOrder } from '../../api/cancel-order';
import { useOrder, type OrderDetail, type OrderStatus } from '../../api/orders';
import { useLoanPayments } from '../../api/payment';
import { usePlan, type LoanPlan } from '../../api/plan';
import { useRepayment } from '../../api/repayment';
import { useHome } from '../../api/home';
import type { KeyFactStatement } from '../../api/types';
import { IneligibleReasons } from '../home/reasons';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { formatDate } from '../products/format';
import { LoanMoneyProvider, useMoney } from '../loan-money';
import { InstallmentsTable } from '../products/key-fact-statement';
import { OrderEnd, RepaySection } from '../servicing/loan-servicing';
import { LoanPayments } from '../servicing/payment-outcome';
import { formatDateTime, formatDay } from './format';
import { OrderNotFound } from './order-not-found';
import { StatusBadge, useStatusLabel } from './order-status';
import '../loans.css';
import { documentUrl } from '../../api/account';

/**
 * One loan, and the place where everything about it happens: how it stands and what comes next (right after confirm,
 * that the application was sent and when a decision comes), withdrawing it while that is still possible, its
 * figures from the accepted KFS in words that follow its state, its schedule (the KFS's until payout, then the plan's
 * due dates), its history, its agreement.
 */
export function OrderPage() {
  const { t } = useTranslation();
  const { orderNo = '' } = useParams();
  const order = useOrder(orderNo);
  // The page is drawn once, whole: the sections under the loan's head (what is due and the ways to pay, the payments,
  // how it ended, the plan's due dates, whether a declined borrower may apply again) come from their own
  // answers, and one that came in after the page
  // was drawn would push what is below it down under a finger already on its way there. So they are asked as soon as
  // the loan's state is known, and the page waits for their first answer; one that failed leaves its section out (or
  // shows its own error) and is not waited for again.
  const status = order.data?.status;
  const serviced = status !== undefined && SERVICED.includes(status);
  const ended = status !== undefined && ENDED.includes(status);
  const paidOut = status !== undefined && PAID_OUT.includes(status);
  const repayment = useRepayment(orderNo, { enabled: serviced });
  const payments = useLoanPayments(orderNo, { enabled: serviced || ended });
  const plan = usePlan(orderNo, { enabled: paidOut });
  const rejected = status === 'rejected';
  const home = useHome({ enabled: rejected });
  const waiting =
    order.isPending ||
    (serviced && !repayment.isFetched) ||
    ((serviced || ended) && !payments.isFetched) ||
    (paidOut && !plan.isFetched) ||
    (rejected && !home.isFetched);
  return (
    <Screen title={t('order.title')} backTo="/orders">
      {waiting ? (
        <LoadingState />
      ) : order.isError ? (
        order.error instanceof ApiError && order.error.status === 404 ? (
          <OrderNotFound />
        ) : (
          <StateNotice kind="error" title={t('order.loadFailed')} text={errorText(order.error, t)} onRetry={() => void order.refetch()} />
        )
      ) : (
        <LoanMoneyProvider kfs={order.data.kfs}>
          <OrderDetails order={order.data} />
        </LoanMoneyProvider>
      )}
    </Screen>
  );
}

/** States in which the borrower may still withdraw (the domain's `Cancel` event). */
const CANCELLABLE: readonly OrderStatus[] = ['pending_review', 'approved'];
/** States in which the lender has said yes: only then is an amount "sanctioned". */
const SANCTIONED: readonly OrderStatus[] = ['approved', 'disbursed', 'overdue', 'repaid', 'exited_in_cooling_off'];

/** States after the payout: only then was anything "paid out". */
const PAID_OUT: readonly OrderStatus[] = ['disbursed', 'overdue', 'repaid', 'exited_in_cooling_off'];

/** Open loans after payout: the place to repay. */
const SERVICED: readonly OrderStatus[] = ['disbursed', 'overdue'];
/** Ended loans: a rating and borrowing again. */
const ENDED: readonly OrderStatus[] = ['repaid', 'exited_in_cooling_off'];

/** Final states before any payout: nothing is scheduled. */
const NEVER_PAID_OUT: readonly OrderStatus[] = ['rejected', 'cancelled'];

/**
 * After a rejection: whether the borrower may apply again, by the server's own rule (the home's eligibility: no
 * waiting period after a decision, only the reasons it states), and how to complain about the decision.
 */
function AfterRejection() {
  const { t } = useTranslation();
  const home = useHome();
  return (
    <section className="card" aria-labelledby="after-rejection">
      <h2 className="kfs__heading" id="after-rejection">
        {t('money.rejected.title')}
      </h2>
      {home.data &&
        (home.data.eligible ? (
          <>
            <p className="kfs__note">{t('money.rejected.applyNow')}</p>
            <Link className="order__agreement" to="/products">
              {t('servicing.end.again')}
            </Link>
          </>
        ) : (
          <>
            <p className="kfs__note">{t('money.rejected.applyLater')}</p>
            <IneligibleReasons reasons={home.data.reasons} openOrderNo={home.data.openOrder?.orderNo} />
          </>
        ))}
      <p className="kfs__note">{t('money.rejected.complainNote')}</p>
      <Link className="order__agreement" to="/complaints/new">
        {t('money.rejected.complain')}
      </Link>
    </section>
  );
}

/** Set by the confirm screen as navigation state, so the loan page greets a new application once. */
export interface OrderPageState {
  confirmed?: boolean;
}

function OrderDetails({ order }: { order: OrderDetail }) {
  const { t } = useTranslation();
  const market = useMarket();
  const timelineLabel = useTimelineLabel();
  const location = useLocation();
  const justConfirmed = (location.state as OrderPageState | null)?.confirmed === true && order.status === 'pending_review';
  const money = useMoney();
  const { kfs } = order;
  const sanctioned = SANCTIONED.includes(order.status);
  const paidOut = PAID_OUT.includes(order.status);
  return (
    <div className="order">
      {justConfirmed && (
        <section className="card order__sent" role="status" aria-labelledby="order-sent">
          <h2 className="order__sent-title" id="order-sent">
            {t('order.sent.title')}
          </h2>
          <p>{t('order.sent.text', { orderNo: order.orderNo })}</p>
        </section>
      )}
      <section className="card order__head" aria-labelledby="order-product">
        <div className="order__title">
          <h2 className="order__product" id="order-product">
            {order.productName}
          </h2>
          <StatusBadge status={order.status} />
        </div>
        <p className="order__amount">{money(order.amount)}</p>
        <p className="order__meta">
          <span>{t('order.number', { orderNo: order.orderNo })}</span>
          <span>{t('order.appliedOn', { date: formatDay(order.createdAt, market) })}</span>
        </p>
        <NextStep order={order} />
        {order.rejectionReason ? (
          <div className="order__reason" role="note">
            <h3 className="order__reason-title">{t('order.rejectionReason')}</h3>
            <p>{order.rejectionReason}</p>
          </div>
        ) : null}
        {order.withdrawalReason ? (
          <div className="order__reason" role="note">
            <h3 className="order__reason-title">{t('order.withdrawalReason')}</h3>
            <p>{order.withdrawalReason}</p>
          </div>
        ) : null}
      </section>

      {SERVICED.includes(order.status) && <RepaySection order={order} />}
      {ENDED.includes(order.status) && <OrderEnd orderNo={order.orderNo} />}
      {(SERVICED.includes(order.status) || ENDED.includes(order.status)) && <LoanPayments orderNo={order.orderNo} />}

      <section className="card" aria-labelledby="order-figures">
        <h2 className="kfs__heading" id="order-figures">
          {t('order.figures')}
        </h2>
        <dl className="figures">
          <div className="figures__row figures__row--apr">
            <dt>{t('kfs.apr')}</dt>
            <dd>{formatApr(order.apr, market)}</dd>
          </div>
          <div className="figures__row">
            <dt>{sanctioned ? t('order.amountSanctioned') : t('order.amountApplied')}</dt>
            <dd>{money(order.amount)}</dd>
          </div>
          <div className="figures__row">
            <dt>{kfs.feesDeductedAtDisbursal ? t('kfs.totalFeesDeducted') : t('kfs.totalFees')}</dt>
            <dd>{money(kfs.totalFees)}</dd>
          </div>
          <div className="figures__row figures__row--strong">
            <dt>{paidOut ? t('kfs.netDisbursed') : t('order.netAmount')}</dt>
            <dd>{money(order.netDisbursed)}</dd>
          </div>
          <div className="figures__row">
            <dt>{t('kfs.totalInterest')}</dt>
            <dd>{money(kfs.totalInterest)}</dd>
          </div>
          <div className="figures__row figures__row--total">
            <dt>{t('kfs.totalRepayable')}</dt>
            <dd>{money(order.totalRepayable)}</dd>
          </div>
        </dl>
      </section>

      {order.status === 'rejected' && <AfterRejection />}

      {/* A loan never paid out has no schedule to come; an ended one shows it as it was planned, all settled. */}
      {!NEVER_PAID_OUT.includes(order.status) && <Schedule order={order} />}

      <section className="card" aria-labelledby="order-timeline">
        <h2 className="kfs__heading" id="order-timeline">
          {t('order.timeline')}
        </h2>
        <ol className="timeline">
          {order.timeline.map((event, index) => (
            <li key={`${event.status}-${event.at}-${index}`} className="timeline__event">
              <span className="timeline__status">{timelineLabel(order.timeline, index)}</span>
              <time className="timeline__at" dateTime={new Date(event.at).toISOString()}>
                {formatDateTime(event.at, market)}
              </time>
            </li>
          ))}
        </ol>
      </section>

      <section className="card order__documents" aria-labelledby="order-documents">
        <h2 className="kfs__heading" id="order-documents">
          {t('order.documents')}
        </h2>
        <p className="kfs__note">{t('order.acceptedAt', { date: formatDateTime(order.acceptedAt, market) })}</p>
        <Link className="order__agreement" to={`/orders/${encodeURIComponent(order.orderNo)}/agreement`}>
          {t('order.agreement')}
        </Link>
        <a className="order__agreement" href={documentUrl(order.orderNo, 'kfs')} download>
          {t('documents.kfsPdf')}
        </a>
        <a className="order__agreement" href={documentUrl(order.orderNo, 'agreement')} download>
          {t('documents.agreementPdf')}
        </a>
        {ENDED.includes(order.status) && (
          <>
            <p className="kfs__note">{t('documents.noDuesNote')}</p>
            <a className="order__agreement" href={documentUrl(order.orderNo, 'no-dues')} download>
              {t('documents.noDuesPdf')}
            </a>
          </>
        )}
      </section>
    </div>
  );
}

/**
 * A timeline entry in words. The loan is "paid out" once: a later return to that state is an extension (from paid out,
 * the only way back to it) or the loan up to date again after being overdue (an extension or the arrears paid).
 */
function useTimelineLabel(): (timeline: OrderDetail['timeline'], index: number) => string {
  const { t } = useTranslation();
  const statusLabel = useStatusLabel();
  return (timeline, index) => {
    const event = timeline[index]!;
    const earlier = timeline.slice(0, index);
    if (event.status === 'disbursed' && earlier.some((e) => e.status === 'disbursed')) {
      return t(earlier.at(-1)?.status === 'overdue' ? 'order.timelineCurrent' : 'order.timelineExtended');
    }
    return statusLabel(event.status);
  };
}

/**
 * The repayment schedule. Until payout, the accepted KFS's, counted from the day it was sealed. Once paid out, the
 * plan's: the server moves the whole schedule to the payout day (the same amounts) and an extension moves it again,
 * so each installment shows its due date now, with the KFS's amounts, which neither move changes (the plan's own
 * amounts owed also carry late charges, extension fees and settlement credits: those are in the sections above). Why a
 * date differs from the KFS is said in words: the payout day, and each extension. The page waited for the plan's
 * first answer; one that failed leaves the KFS's dates, saying that they are.
 */
function Schedule({ order }: { order: OrderDetail }) {
  const { t } = useTranslation();
  const market = useMarket();
  const { kfs } = order;
  const paidOut = PAID_OUT.includes(order.status);
  const plan = usePlan(order.orderNo, { enabled: paidOut });
  const current = paidOut ? plan.data : undefined;
  const planFailed = paidOut && !current && plan.isError;
  const payoutMoved = current ? payoutMove(kfs, current) : null;
  const movedNote =
    current && payoutMoved
      ? t(payoutMoved.days === null ? 'order.payoutMovedUneven' : 'order.payoutMoved', {
          count: payoutMoved.days ?? 0,
          date: formatDate(current.payoutDate, market),
          kfsDate: formatDate(kfs.disbursalDate, market),
        })
      : null;
  const stateNote =
    order.status === 'repaid'
      ? t('money.closed.scheduleRepaid')
      : order.status === 'exited_in_cooling_off'
        ? t('money.closed.scheduleExited')
        : movedNote || planFailed
          ? null
          : t('order.scheduleNote', { date: formatDate(kfs.disbursalDate, market) });
  return (
    <section className="card" aria-labelledby="order-schedule">
      <h2 className="kfs__heading" id="order-schedule">
        {t('kfs.schedule')}
      </h2>
      {stateNote && <p className="kfs__note">{stateNote}</p>}
      {movedNote && <p className="kfs__note">{movedNote}</p>}
      {planFailed && <p className="kfs__note">{t('order.planFailed')}</p>}
      <InstallmentsTable installments={current ? onPlanDates(kfs.installments, current) : kfs.installments} />
      {current && <MovedDueDates plan={current} />}
    </section>
  );
}

/** The KFS's installment `number` (1-based; older statements may not carry it) in the plan, which numbers them `seq`. */
function planned(plan: LoanPlan, installment: KeyFactStatement['installments'][number], index: number) {
  const seq = installment.number ?? index + 1;
  return plan.installments.find((i) => i.seq === seq);
}

/** The KFS's installments on the plan's due dates now (after the payout's move and any extension). */
function onPlanDates(installments: KeyFactStatement['installments'], plan: LoanPlan): KeyFactStatement['installments'] {
  return installments.map((installment, index) => {
    const now = planned(plan, installment, index);
    return now ? { ...installment, dueDate: now.dueDate } : installment;
  });
}

const DAY_MS = 86_400_000;

/**
 * How the payout day moved the KFS's due dates (the plan's `plannedDueDate`, before any extension): null when it
 * moved none; `days` when it moved each by as many days, null when by different ones (a monthly schedule paid out
 * near a month's end).
 */
function payoutMove(kfs: KeyFactStatement, plan: LoanPlan): { days: number | null } | null {
  const shifts = kfs.installments.map((installment, index) => {
    const now = planned(plan, installment, index);
    return now ? Math.round((Date.parse(now.plannedDueDate) - Date.parse(installment.dueDate)) / DAY_MS) : 0;
  });
  if (shifts.every((days) => days === 0)) return null;
  return { days: shifts.every((days) => days === shifts[0]) ? Math.abs(shifts[0]!) : null };
}

/** Under the schedule: the installments an extension moved, with their due dates now (from the plan). */
function MovedDueDates({ plan }: { plan: LoanPlan }) {
  const { t } = useTranslation();
  const market = useMarket();
  const moved = plan.installments.filter((i) => i.dueDate !== i.plannedDueDate);
  if (moved.length === 0) return null;
  return (
    <ul className="order__moved">
      {moved.map((i) => (
        <li key={i.seq}>{t('order.moved', { seq: i.seq, date: formatDate(i.dueDate, market) })}</li>
      ))}
    </ul>
  );
}

/** What this state means for the borrower and what comes next; the way to withdraw while that is possible. */
function NextStep({ order }: { order: OrderDetail }) {
  const { t } = useTranslation();
  const money = useMoney();
  const known = ['pending_review', 'approved', 'cancelled', 'disbursed', 'overdue', 'repaid', 'exited_in_cooling_off'];
  if (!known.includes(order.status)) return null;
  return (
    <div className="order__next">
      <p className="order__next-text">
        {/* Withdrawn by the lender (the bank would not take the payout), not by the borrower. */}
        {t(order.withdrawalReason ? 'order.next.withdrawn' : `order.next.${order.status}`, { amount: money(order.netDisbursed) })}
      </p>
      {CANCELLABLE.includes(order.status) && <CancelAction orderNo={order.orderNo} />}
    </div>
  );
}

function CancelAction({ orderNo }: { orderNo: string }) {
  const { t } = useTranslation();
  const cancel = useCancelOrder(orderNo);
  const [asking, setAsking] = useState(false);
  const problem = cancel.error && cancel.error.status !== 401 ? cancel.error : null;
  return (
    <>
      <Button block fill="outline" color="danger" loading={cancel.isPending} loadingText={t('order.cancel.working')} onClick={() => setAsking(true)}>
        {t('order.cancel.action')}
      </Button>
      {problem && (
        <p className="order__cancel-problem" role="alert">
          {problem.code === 'invalid_transition' ? t('order.cancel.tooLate') : errorText(problem, t)}
        </p>
      )}
      {/* Mounted only while asking, inside the app's providers so the kit speaks the market's language. */}
      {asking && (
        <Dialog
          visible
          title={t('order.cancel.title')}
          content={t('order.cancel.text')}
          closeOnMaskClick
          onClose={() => setAsking(false)}
          actions={[
            [
              { key: 'keep', text: t('order.cancel.keep'), onClick: () => setAsking(false) },
              {
                key: 'withdraw',
                text: t('order.cancel.confirm'),
                danger: true,
                bold: true,
                onClick: () => {
                  setAsking(false);
                  cancel.mutate();
                },
              },
            ],
          ]}
        />
      )}
    </>
  );
}
