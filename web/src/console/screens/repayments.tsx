import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import type { ApiError } from '@/shared/api/http';
import {
  exportHref,
  PAYMENTS_QUEUE_LIMIT,
  useClaimRefund,
  useConfirmPayment,
  usePaymentCounts,
  usePaymentsQueue,
  useRecordRefund,
  useRejectPayment,
  useResolvePayment,
  type QueueStatus,
  type ResolveAction,
} from '../api/finance';
import type { ApiMarket, Currency, PaymentView, QueuedPayment } from '../api/types';
import { age, dateTime, marketName, minorOf, money } from '../format';
import { useOperator, useOperatorMarkets } from '../operator-context';
import { consolePaths } from '../paths';
import { BANK_REFERENCE } from './payouts';
import { LoadFailed, Loading, ScreenAlert, useFocusOn, type ScreenNotice } from './states';
import { UnmatchedReceipts } from './unmatched';

/** The same limit as the server's: the borrower reads the reason. */
export const MAX_REJECT_REASON = 500;

/** Someone else decided the payment first (409): said above the queue (`onRefused`), never on the card. */
const NOT_OPEN = 'payment_not_open';

/** Methods whose money only ever arrives through a provider's report. */
const PROVIDER_METHODS: readonly string[] = ['virtual_account', 'dragonpay'];
/** The statuses a payment waits for finance in (`GET /payments?status=`). */
const STATUSES: readonly QueueStatus[] = ['verifying', 'held', 'refund_due'];
/** The queue's groups: every waiting payment, or those of one status (asked of the server). */
const GROUPS = ['all', ...STATUSES] as const;
type Group = (typeof GROUPS)[number];

function groupOf(params: URLSearchParams): Group {
  const asked = params.get('status');
  return GROUPS.find((g) => g === asked) ?? 'all';
}

/** How each status reads at a glance. */
const TONE: Record<PaymentView['status'], string> = {
  pending: 'badge--info',
  verifying: 'badge--info',
  confirmed: 'badge--ok',
  rejected: 'badge--danger',
  held: 'badge--warn',
  refund_due: 'badge--warn',
  refunded: 'badge--ok',
};

/**
 * Finance's queue, oldest first, each with the loan's outstanding amount: submitted UTRs to verify, held amounts to
 * credit or refund, and refunds due to record. The amount asked and the amount received are shown side by side, and
 * every money move is restated before it is sent.
 */
function marketParam(params: URLSearchParams, markets: readonly ApiMarket[]): ApiMarket | undefined {
  const asked = params.get('market');
  return markets.find((m) => m === asked);
}

/** The page's link with `changes` applied to its query (an empty value drops the parameter). */
function withParams(params: URLSearchParams, changes: Record<string, string>): string {
  const next = new URLSearchParams(params);
  for (const [key, value] of Object.entries(changes)) {
    if (value) next.set(key, value);
    else next.delete(key);
  }
  const text = next.toString();
  return text ? `${consolePaths.repayments}?${text}` : consolePaths.repayments;
}

export function RepaymentsScreen() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const group = groupOf(params);
  const markets = useOperatorMarkets();
  const market = marketParam(params, markets);
  const search = params.get('q') ?? '';
  const [typed, setTyped] = useState(search);
  // The status is the server's filter: its list stops at 200, so picking a status out of it could leave some out.
  const queue = usePaymentsQueue({ market, status: group === 'all' ? undefined : group, q: search });
  const counts = usePaymentCounts();
  const [notice, setNotice] = useState<ScreenNotice | null>(null);
  // A refusal because someone else decided first: said here, since the queue read again may no longer hold the card.
  const [refused, setRefused] = useState<ScreenNotice | null>(null);
  // The card's button is gone with what it did (the card changes or goes once the queue is read again): the focus goes
  // to the notice saying what happened.
  const noticeRef = useFocusOn<HTMLParagraphElement>(notice);
  const done = (text: string) => {
    setRefused(null);
    setNotice({ text });
  };
  const refuse = (text: string) => {
    setNotice(null);
    setRefused({ text });
  };
  // The notices are of the market and tab they were given in: another one starts without them.
  const view = `${market ?? ''}:${group}`;
  const [noticesOf, setNoticesOf] = useState(view);
  if (noticesOf !== view) {
    setNoticesOf(view);
    setNotice(null);
    setRefused(null);
  }
  // Each tab's count is the server's, of the markets in view; a search is not counted there, so its tabs say none.
  const count = (g: Group): number | null => {
    if (!counts.data || search) return null;
    const statuses: readonly string[] = g === 'all' ? STATUSES : [g];
    const inView: readonly string[] = market ? [market] : markets;
    return counts.data.filter((c) => inView.includes(c.market) && statuses.includes(c.status)).reduce((sum, c) => sum + c.count, 0);
  };
  const filtered = market !== undefined || search !== '';
  const submitSearch = (event: FormEvent) => {
    event.preventDefault();
    const next = new URLSearchParams(params);
    if (typed.trim()) next.set('q', typed.trim());
    else next.delete('q');
    setParams(next);
  };

  return (
    <section>
      <div className="page-head">
        <h1>{t('repayments.title')}</h1>
        <div className="actions">
          <Link className="button button--quiet" to={consolePaths.reconciliation}>
            {t('repayments.reconcile')}
          </Link>
          <a className="button button--quiet" href={exportHref({ market, q: search })} download>
            {t('repayments.export')}
          </a>
        </div>
      </div>
      {counts.data && (
        <p className="muted" aria-live="polite">
          {markets.map((m) => {
            const of = (status: string) => counts.data.find((c) => c.market === m && c.status === status)?.count ?? 0;
            return t('repayments.countsLine', {
              market: marketName(m, t),
              verifying: of('verifying'),
              held: of('held'),
              refunds: of('refund_due'),
            });
          }).join(' · ')}
        </p>
      )}
      <div className="queue-filters">
        <nav aria-label={t('repayments.markets')} className="tabs">
          {markets.length > 1 && (
            <Link to={withParams(params, { market: '' })} aria-current={market === undefined ? 'page' : undefined}>
              {t('repayments.allMarkets')}
            </Link>
          )}
          {markets.map((m) => (
            <Link key={m} to={withParams(params, { market: m })} aria-current={m === market ? 'page' : undefined}>
              {marketName(m, t)}
            </Link>
          ))}
        </nav>
        <form role="search" className="inline-form" onSubmit={submitSearch}>
          <label htmlFor="repayments-search">{t('repayments.search')}</label>
          <input
            id="repayments-search"
            type="search"
            value={typed}
            autoComplete="off"
            spellCheck={false}
            aria-describedby="repayments-search-hint"
            onChange={(event) => setTyped(event.target.value)}
          />
          <button type="submit" className="button">
            {t('repayments.searchButton')}
          </button>
          {search && (
            <Link className="button button--quiet" to={withParams(params, { q: '' })} onClick={() => setTyped('')}>
              {t('repayments.clearSearch')}
            </Link>
          )}
          <p className="muted" id="repayments-search-hint">
            {t('repayments.searchHint')}
          </p>
        </form>
      </div>
      {/* Money providers reported for no payment's reference, of the market the queue is filtered to (never hidden). */}
      <UnmatchedReceipts market={market} />
      <nav aria-label={t('repayments.groups')} className="tabs">
        {GROUPS.map((g) => {
          const n = count(g);
          return (
            <Link key={g} to={withParams(params, { status: g === 'all' ? '' : g })} aria-current={g === group ? 'page' : undefined}>
              {n === null ? t(`repayments.groupName.${g}`) : t(`repayments.group.${g}`, { count: n })}
            </Link>
          );
        })}
      </nav>
      {notice && (
        <p ref={noticeRef} role="status" tabIndex={-1} className="notice notice--success">
          {notice.text}
        </p>
      )}
      <ScreenAlert notice={refused} />
      {queue.isPending ? (
        <Loading label={t('repayments.loading')} />
      ) : queue.isError ? (
        <LoadFailed error={queue.error} onRetry={() => void queue.refetch()} />
      ) : queue.data.length === 0 ? (
        <p className="empty">{group !== 'all' ? t('repayments.emptyGroup') : filtered ? t('repayments.emptyFiltered') : t('repayments.empty')}</p>
      ) : (
        <>
          {queue.data.length >= PAYMENTS_QUEUE_LIMIT && (
            <p className="notice">{t('repayments.capped', { count: PAYMENTS_QUEUE_LIMIT })}</p>
          )}
          <ul className="payment-list" aria-label={t('repayments.caption', { count: queue.data.length })}>
            {queue.data.map((item) => (
              <PaymentItem key={item.payment.paymentId} item={item} now={queue.dataUpdatedAt} onDone={done} onRefused={refuse} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

type Mode = 'idle' | 'confirm' | 'reject' | ResolveAction | 'record' | 'takeOver';

/** Hears a card's refused decision: one because someone else decided first is said above the queue. */
type OnRefused = (error: ApiError) => void;

/**
 * `now`: when the queue was read (epoch ms), the time its ages are counted to. `onRefused` says above the queue that
 * someone else decided the payment first: the queue is read again then and this card may be gone with its notice.
 */
function PaymentItem({
  item,
  now,
  onDone,
  onRefused,
}: {
  item: QueuedPayment;
  now: number;
  onDone: (text: string) => void;
  onRefused: (text: string) => void;
}) {
  const { t } = useTranslation();
  const { payment, currency } = item;
  const [mode, setMode] = useState<Mode>('idle');
  const id = payment.paymentId;
  const asked = payment.amount;
  const received = payment.receivedAmount;
  // Money a provider reported in another currency: never the payment's money (the server answers other_currency).
  const foreign = payment.receivedCurrency;
  // The server credits or refunds what was recorded as received; a held payment without it falls back to the asked.
  const held = received ?? asked;
  const difference = received === null || foreign ? 0 : received - asked;
  const idle = () => setMode('idle');
  const me = useOperator().username;
  const sender = item.refundSendingBy;
  const mine = sender !== null && sender === me;
  // A decided payment may stay in the queue in its next status (held, refund due): it starts from its actions again.
  const done = (text: string) => {
    setMode('idle');
    onDone(text);
  };
  const refused: OnRefused = (error) => {
    if (error.code === NOT_OPEN) onRefused(t('repayments.notOpen'));
  };

  const facts: [string, string][] = [
    [t('repayments.amount'), money(asked, currency)],
    [
      t('repayments.receivedAmount'),
      received === null ? t('repayments.notReceived') : foreign ? `${foreign} ${(received / 100).toFixed(2)}` : money(received, currency),
    ],
  ];
  if (difference !== 0)
    facts.push([
      t('repayments.difference'),
      t(difference < 0 ? 'repayments.short' : 'repayments.over', { amount: money(Math.abs(difference), currency) }),
    ]);
  if (payment.refundAmount !== null) facts.push([t('repayments.refundAmount'), money(payment.refundAmount, currency)]);
  facts.push(
    [t('repayments.outstanding'), money(item.outstanding, currency)],
    [t('repayments.utr'), payment.utr ?? '—'],
    [
      t('repayments.method'),
      `${t(`repayments.methods.${payment.method}`, { defaultValue: payment.method })} · ${t(`repayments.choices.${payment.choice}`, { defaultValue: payment.choice })}`,
    ],
    [t('repayments.market'), marketName(item.market, t)],
    [t('repayments.created'), dateTime(payment.createdAt)],
    [t('repayments.waiting'), age(Math.max(0, (now - item.waitingSince) / 1000), t)],
  );

  return (
    <li className="panel payment" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>
        <Link to={consolePaths.order(payment.orderNo)}>{payment.orderNo}</Link> · {payment.reference}{' '}
        <span className={`badge ${TONE[payment.status]}`}>{t(`repayments.statuses.${payment.status}`)}</span>
      </h2>
      <dl className="facts facts--compact">
        {facts.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {payment.status === 'held' && <p className="muted">{foreign ? t('repayments.otherCurrencyHint', { currency: foreign }) : t('repayments.heldHint')}</p>}
      {payment.status === 'rejected' && <p className="muted">{t('repayments.rejectedHint', { reason: payment.reason ?? '—' })}</p>}
      {payment.status === 'refund_due' && payment.refundAmount !== null && (
        <RefundSender item={item} mine={mine} amount={money(payment.refundAmount, currency)} />
      )}
      {mode === 'idle' && (
        <div className="actions">
          {payment.status === 'verifying' && (
            <>
              <button type="button" className="button button--primary" onClick={() => setMode('confirm')}>
                {t('repayments.confirm')}
              </button>
              <button type="button" className="button button--danger" onClick={() => setMode('reject')}>
                {t('repayments.reject')}
              </button>
            </>
          )}
          {payment.status === 'held' && foreign && (
            <button type="button" className="button button--quiet" onClick={() => setMode('reject')}>
              {t('repayments.reject')}
            </button>
          )}
          {payment.status === 'held' && !foreign && (
            <>
              <button type="button" className="button button--primary" onClick={() => setMode('credit')}>
                {t('repayments.credit', { amount: money(held, currency) })}
              </button>
              <button type="button" className="button button--danger" onClick={() => setMode('refund')}>
                {t('repayments.refund', { amount: money(held, currency) })}
              </button>
              {/* A virtual account's or Dragonpay's money was reported by its provider: it arrived, at the amount it
                  reported, so it is credited or refunded at that amount, never at another or rejected (the server
                  answers amount_reported, money_reported). */}
              {!PROVIDER_METHODS.includes(payment.method) && (
                <>
                  <button type="button" className="button button--quiet" onClick={() => setMode('confirm')}>
                    {t('repayments.otherAmount')}
                  </button>
                  <button type="button" className="button button--quiet" onClick={() => setMode('reject')}>
                    {t('repayments.reject')}
                  </button>
                </>
              )}
            </>
          )}
          {/* Found by a search: money finance rejected that the statement shows after all is held at what came. */}
          {payment.status === 'rejected' && (
            <button type="button" className="button button--primary" onClick={() => setMode('confirm')}>
              {t('repayments.arrived')}
            </button>
          )}
          {/* One operator sends a refund: they say so first, then only they record it; another takes it over only
              deliberately (the server answers refund_claimed otherwise). */}
          {payment.status === 'refund_due' && sender === null && <ClaimButton paymentId={id} onRefused={refused} />}
          {payment.status === 'refund_due' && mine && (
            <button type="button" className="button button--primary" onClick={() => setMode('record')}>
              {t('repayments.record')}
            </button>
          )}
          {payment.status === 'refund_due' && sender !== null && !mine && (
            <button type="button" className="button button--quiet" onClick={() => setMode('takeOver')}>
              {t('repayments.takeOver')}
            </button>
          )}
        </div>
      )}
      {mode === 'confirm' && <ConfirmForm item={item} onCancel={idle} onDone={done} onRefused={refused} />}
      {mode === 'reject' && <RejectForm item={item} onCancel={idle} onDone={done} onRefused={refused} />}
      {(mode === 'credit' || mode === 'refund') && (
        <ResolveStep item={item} action={mode} amount={held} onCancel={idle} onDone={done} onRefused={refused} />
      )}
      {mode === 'record' && <RefundForm item={item} onCancel={idle} onDone={done} onRefused={refused} />}
      {mode === 'takeOver' && <TakeOverStep item={item} onCancel={idle} onRefused={refused} />}
    </li>
  );
}

/** Who is sending a refund due, as its card says it: nobody yet, the signed-in operator, or someone else. */
function RefundSender({ item, mine, amount }: { item: QueuedPayment; mine: boolean; amount: string }) {
  const { t } = useTranslation();
  const since = item.refundSendingSince === null ? '' : dateTime(item.refundSendingSince);
  if (item.refundSendingBy === null) return <p className="muted">{t('repayments.refundDueHint', { amount })}</p>;
  if (mine) return <p className="muted">{t('repayments.refundMine', { amount, since })}</p>;
  return <p className="notice">{t('repayments.refundTheirs', { amount, who: item.refundSendingBy, since })}</p>;
}

/** "I am sending it": the refund becomes the signed-in operator's to send and record. Refused (someone said so
 * first), the queue is read again and the card names them. */
function ClaimButton({ paymentId, onRefused }: { paymentId: string; onRefused: OnRefused }) {
  const { t } = useTranslation();
  const claim = useClaimRefund();
  return (
    <>
      <button
        type="button"
        className="button button--primary"
        disabled={claim.isPending}
        onClick={() => claim.mutate({ paymentId, takeOver: false }, { onError: onRefused })}
      >
        {t('repayments.claim')}
      </button>
      <Failure error={claim.error} />
    </>
  );
}

/** Taking a refund over from the operator who said they are sending it: restated, since it can pay the borrower twice. */
function TakeOverStep({ item, onCancel, onRefused }: { item: QueuedPayment; onCancel: () => void; onRefused: OnRefused }) {
  const { t } = useTranslation();
  const claim = useClaimRefund();
  const id = `${item.payment.paymentId}-take-over`;
  return (
    <div role="group" aria-labelledby={id}>
      <Failure error={claim.error} />
      <p id={id}>
        <strong>{t('repayments.takeOverText', { who: item.refundSendingBy })}</strong>
      </p>
      <div className="actions">
        <button
          type="button"
          className="button button--danger"
          disabled={claim.isPending}
          onClick={() => claim.mutate({ paymentId: item.payment.paymentId, takeOver: true }, { onSuccess: onCancel, onError: onRefused })}
        >
          {t('repayments.takeOverButton')}
        </button>
        <button type="button" className="button button--quiet" onClick={onCancel} disabled={claim.isPending}>
          {t('repayments.back')}
        </button>
      </div>
    </div>
  );
}

/** What finance's decision did to the payment, as the notice above the queue says it. */
function outcome(t: ReturnType<typeof useTranslation>['t'], done: PaymentView, currency: Currency, received: number): string {
  const reference = done.reference;
  const refund = done.refundAmount ?? 0;
  switch (done.status) {
    case 'held':
      return t('repayments.heldDone', { reference, amount: money(received, currency) });
    case 'refund_due':
      return refund < received
        ? t('repayments.partRefundDone', { reference, amount: money(received - refund, currency), refund: money(refund, currency) })
        : t('repayments.refundDueDone', { reference, refund: money(refund, currency) });
    default:
      return t('repayments.confirmedDone', { reference, amount: money(received, currency) });
  }
}

/** A refusal that is no field's and not `NOT_OPEN`: what the envelope says, on the card. */
function Failure({ error }: { error: ApiError | null }) {
  const { t } = useTranslation();
  if (!error || error.code === NOT_OPEN) return null;
  return (
    <p role="alert" className="notice notice--error">
      {errorText(error, t)}
    </p>
  );
}

/** The amount received, typed by finance from the bank statement (never prefilled), then a step that restates it. */
function ConfirmForm({
  item,
  onCancel,
  onDone,
  onRefused,
}: {
  item: QueuedPayment;
  onCancel: () => void;
  onDone: (text: string) => void;
  onRefused: OnRefused;
}) {
  const { t } = useTranslation();
  const { payment, currency } = item;
  const confirm = useConfirmPayment();
  const [amount, setAmount] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [checked, setChecked] = useState<number | null>(null);
  const id = payment.paymentId;
  const held = payment.status === 'held';

  const check = (event: FormEvent) => {
    event.preventDefault();
    // As the statement writes it in the payment's currency: `3,500.25` in rupees, `1.000.000` in whole rupiah.
    const minor = minorOf(amount, currency);
    if (minor === null || minor <= 0) return setError(t(currency === 'IDR' ? 'repayments.amountInvalidIdr' : 'repayments.amountInvalid'));
    setError(null);
    confirm.reset();
    setChecked(minor);
  };
  const send = () => {
    if (checked === null) return;
    confirm.mutate(
      { paymentId: id, amount: checked },
      {
        onSuccess: (done) => onDone(outcome(t, done.payment, currency, checked)),
        onError: (error) => {
          setChecked(null);
          onRefused(error);
        },
      },
    );
  };
  const serverError = confirm.error?.fields.amount ?? null;
  const fieldError = error ?? serverError;

  const question =
    checked === null
      ? ''
      : payment.status === 'rejected'
        ? t('repayments.confirmRejected', { amount: money(checked, currency), reference: payment.reference })
        : held
        ? t('repayments.confirmHeld', { amount: money(checked, currency), expected: money(payment.amount, currency), reference: payment.reference })
        : checked === payment.amount
          ? t('repayments.confirmText', { amount: money(checked, currency), reference: payment.reference })
          : t('repayments.confirmDifferent', { amount: money(checked, currency), expected: money(payment.amount, currency) });

  return (
    <>
      {!serverError && <Failure error={confirm.error} />}
      {checked === null ? (
        <form onSubmit={check} noValidate>
          <div className="field">
            <label htmlFor={`${id}-amount`}>{t('repayments.received', { currency })}</label>
            <input
              id={`${id}-amount`}
              inputMode="decimal"
              autoComplete="off"
              value={amount}
              aria-invalid={fieldError ? true : undefined}
              aria-describedby={`${id}-amount-hint`}
              onChange={(event) => setAmount(event.target.value)}
            />
            <p className={fieldError ? 'field-error' : 'muted'} id={`${id}-amount-hint`}>
              {fieldError ?? t(currency === 'IDR' ? 'repayments.receivedHintIdr' : 'repayments.receivedHint', { asked: money(payment.amount, currency) })}
            </p>
          </div>
          <div className="actions">
            <button type="submit" className="button button--primary">{t('repayments.continue')}</button>
            <button type="button" className="button button--quiet" onClick={onCancel}>{t('repayments.cancel')}</button>
          </div>
        </form>
      ) : (
        <div role="group" aria-labelledby={`${id}-confirm`}>
          <p id={`${id}-confirm`}>
            <strong>{question}</strong>
          </p>
          <div className="actions">
            <button type="button" className="button button--primary" onClick={send} disabled={confirm.isPending}>
              {t('repayments.confirmButton', { amount: money(checked, currency) })}
            </button>
            <button type="button" className="button button--quiet" onClick={() => setChecked(null)} disabled={confirm.isPending}>
              {t('repayments.back')}
            </button>
          </div>
        </div>
      )}
    </>
  );
}

/** A held payment credited or owed back as received, after a step that restates the money move. */
function ResolveStep({
  item,
  action,
  amount,
  onCancel,
  onDone,
  onRefused,
}: {
  item: QueuedPayment;
  action: ResolveAction;
  amount: number;
  onCancel: () => void;
  onDone: (text: string) => void;
  onRefused: OnRefused;
}) {
  const { t } = useTranslation();
  const { payment, currency } = item;
  const resolve = useResolvePayment();
  const id = `${payment.paymentId}-${action}`;
  const send = () =>
    resolve.mutate(
      { paymentId: payment.paymentId, action },
      { onSuccess: (done) => onDone(outcome(t, done.payment, currency, amount)), onError: onRefused },
    );
  const values = { amount: money(amount, currency), expected: money(payment.amount, currency), reference: payment.reference };
  const actionError = resolve.error?.fields.action;
  return (
    <div role="group" aria-labelledby={id}>
      {actionError ? (
        <p role="alert" className="notice notice--error">
          {actionError}
        </p>
      ) : (
        <Failure error={resolve.error} />
      )}
      <p id={id}>
        <strong>{t(action === 'credit' ? 'repayments.creditText' : 'repayments.refundText', values)}</strong>
      </p>
      <div className="actions">
        <button
          type="button"
          className={action === 'credit' ? 'button button--primary' : 'button button--danger'}
          onClick={send}
          disabled={resolve.isPending}
        >
          {t(action === 'credit' ? 'repayments.creditButton' : 'repayments.refundButton', values)}
        </button>
        <button type="button" className="button button--quiet" onClick={onCancel} disabled={resolve.isPending}>
          {t('repayments.back')}
        </button>
      </div>
    </div>
  );
}

/** The bank reference of the refund's transfer, checked as the server checks it, then a step that restates it. */
function RefundForm({
  item,
  onCancel,
  onDone,
  onRefused,
}: {
  item: QueuedPayment;
  onCancel: () => void;
  onDone: (text: string) => void;
  onRefused: OnRefused;
}) {
  const { t } = useTranslation();
  const { payment, currency } = item;
  const record = useRecordRefund();
  const [reference, setReference] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const id = `${payment.paymentId}-bank-reference`;
  const refund = money(payment.refundAmount ?? 0, currency);

  const check = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = reference.trim();
    if (!trimmed) return setError(t('repayments.referenceRequired'));
    if (!BANK_REFERENCE.test(trimmed)) return setError(t('repayments.referenceInvalid'));
    setError(null);
    record.reset();
    setConfirming(true);
  };
  const send = () =>
    record.mutate(
      { paymentId: payment.paymentId, bankReference: reference.trim() },
      {
        onSuccess: (done) =>
          onDone(t('repayments.refundedDone', { reference: done.reference, refund, bankReference: done.refundReference ?? reference.trim() })),
        onError: (error) => {
          setConfirming(false);
          onRefused(error);
        },
      },
    );
  const serverError = record.error?.fields.bankReference ?? null;
  const fieldError = error ?? serverError;

  return (
    <>
      {!serverError && <Failure error={record.error} />}
      {confirming ? (
        <div role="group" aria-labelledby={`${id}-confirm`}>
          <p id={`${id}-confirm`}>
            <strong>{t('repayments.recordText', { refund, reference: payment.reference, bankReference: reference.trim() })}</strong>
          </p>
          <div className="actions">
            <button type="button" className="button button--primary" onClick={send} disabled={record.isPending}>
              {t('repayments.recordButton', { refund })}
            </button>
            <button type="button" className="button button--quiet" onClick={() => setConfirming(false)} disabled={record.isPending}>
              {t('repayments.back')}
            </button>
          </div>
        </div>
      ) : (
        <form onSubmit={check} noValidate>
          <div className="field">
            <label htmlFor={id}>{t('repayments.bankReference')}</label>
            <input
              id={id}
              value={reference}
              autoComplete="off"
              spellCheck={false}
              aria-invalid={fieldError ? true : undefined}
              aria-describedby={`${id}-hint`}
              onChange={(event) => setReference(event.target.value)}
            />
            <p className={fieldError ? 'field-error' : 'muted'} id={`${id}-hint`}>
              {fieldError ?? t('repayments.referenceHint', { refund })}
            </p>
          </div>
          <div className="actions">
            <button type="submit" className="button button--primary">{t('repayments.continue')}</button>
            <button type="button" className="button button--quiet" onClick={onCancel}>{t('repayments.cancel')}</button>
          </div>
        </form>
      )}
    </>
  );
}

/**
 * A payment rejected with the reason the borrower reads, after a step that restates the payment, its order and amount,
 * and the reason: nothing is sent before it.
 */
function RejectForm({
  item,
  onCancel,
  onDone,
  onRefused,
}: {
  item: QueuedPayment;
  onCancel: () => void;
  onDone: (text: string) => void;
  onRefused: OnRefused;
}) {
  const { t } = useTranslation();
  const { payment, currency } = item;
  const reject = useRejectPayment();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  // The reason as it will be sent, once checked: the step that restates it is on show.
  const [checked, setChecked] = useState<string | null>(null);
  const id = payment.paymentId;
  const check = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = reason.trim();
    if (!trimmed) return setError(t('repayments.reasonRequired'));
    if ([...trimmed].length > MAX_REJECT_REASON) return setError(t('repayments.reasonTooLong', { max: MAX_REJECT_REASON }));
    setError(null);
    reject.reset();
    setChecked(trimmed);
  };
  const send = () => {
    if (checked === null) return;
    reject.mutate(
      { paymentId: id, reason: checked },
      {
        onSuccess: () => onDone(t('repayments.rejectedDone', { reference: payment.reference })),
        onError: (error) => {
          setChecked(null);
          onRefused(error);
        },
      },
    );
  };
  const serverError = reject.error?.fields.reason ?? null;
  const fieldError = error ?? serverError;
  const values = { reference: payment.reference, orderNo: payment.orderNo, amount: money(payment.amount, currency), utr: payment.utr };
  return (
    <>
      {!serverError && <Failure error={reject.error} />}
      {checked !== null ? (
        <div role="group" aria-labelledby={`${id}-reject-confirm`}>
          <p id={`${id}-reject-confirm`}>
            <strong>{t(payment.utr ? 'repayments.rejectConfirmUtr' : 'repayments.rejectConfirm', values)}</strong>
          </p>
          <p>
            {t('repayments.rejectConfirmReason')} “{checked}”
          </p>
          <div className="actions">
            <button type="button" className="button button--danger" onClick={send} disabled={reject.isPending}>
              {t('repayments.rejectYes', { reference: payment.reference })}
            </button>
            <button type="button" className="button button--quiet" onClick={() => setChecked(null)} disabled={reject.isPending}>
              {t('repayments.back')}
            </button>
          </div>
        </div>
      ) : (
        <form onSubmit={check} noValidate>
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
            <button type="submit" className="button button--danger">{t('repayments.continue')}</button>
            <button type="button" className="button button--quiet" onClick={onCancel}>{t('repayments.cancel')}</button>
          </div>
        </form>
      )}
    </>
  );
}
