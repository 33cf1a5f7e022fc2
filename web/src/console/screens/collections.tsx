// Collections: the overdue queue per market with bucket counts and filters, a loan's collections panel (the contact
// log, a log-contact form within the market's contact hours that records the promise made with the outcome "promised",
// a promise form) and the contact history the order view shows. Only the borrower's own phone is ever shown, never an
// emergency contact.
import { useState, type FormEvent } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useParams, useSearchParams } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { ApiError } from '@/shared/api/http';
import {
  BUCKETS,
  CHANNELS,
  OUTCOMES,
  PAGE_SIZE,
  useCollectionsCase,
  useCollectionsQueue,
  useContactHistory,
  useLogContact,
  usePromiseToPay,
  useRevealPhone,
  type Bucket,
  type Channel,
  type ContactInput,
  type Outcome,
  type QueueFilter,
  type QueueSort,
} from '../api/collections';
import type { ApiMarket, CollectionsCase, ContactHours, ContactLogged, Currency, PromiseToPay, QueuedLoan } from '../api/types';
import { dateTime, day, marketName, minorOf, money } from '../format';
import { consolePaths } from '../paths';
import { LoadFailed, Loading } from './states';
import { useOperatorMarkets } from '../operator-context';

/** "Calling hours are 08:00–19:00 in India; it is 21:14 there now." */
export function hoursText(hours: ContactHours, t: TFunction): string {
  return t(hours.open ? 'collections.hoursOpen' : 'collections.hoursClosed', {
    from: hours.from,
    until: hours.until,
    market: marketName(hours.market, t),
    now: hours.localTime,
  });
}

function HoursNotice({ hours }: { hours: ContactHours }) {
  const { t } = useTranslation();
  return (
    <p role="status" className={`notice ${hours.open ? 'notice--info' : 'notice--warning'}`} data-testid="contact-hours">
      {hoursText(hours, t)}
    </p>
  );
}

function isMarket(value: string | null): value is ApiMarket {
  return value === 'IN' || value === 'ID';
}

function isBucket(value: string | null): value is Bucket {
  return BUCKETS.includes(value as Bucket);
}

/** The address's query for a filter of the queue; the defaults are left out. */
function paramsOf(f: QueueFilter): URLSearchParams {
  const out = new URLSearchParams({ market: f.market });
  if (f.bucket) out.set('bucket', f.bucket);
  if (f.sort !== 'dpd_desc') out.set('sort', f.sort);
  if (f.page > 1) out.set('page', String(f.page));
  return out;
}

/** The queue's filter, kept in the address so a filtered page can be shared and reloaded. */
function useFilter(): [QueueFilter, (next: Partial<QueueFilter>) => void] {
  const [params, setParams] = useSearchParams();
  const markets = useOperatorMarkets();
  const market = params.get('market');
  const bucket = params.get('bucket');
  const page = Number(params.get('page') ?? '1');
  const filter: QueueFilter = {
    market: isMarket(market) && markets.includes(market) ? market : (markets[0] ?? 'IN'),
    bucket: isBucket(bucket) ? bucket : null,
    sort: params.get('sort') === 'dpd_asc' ? 'dpd_asc' : 'dpd_desc',
    page: Number.isInteger(page) && page > 0 ? page : 1,
  };
  const update = (next: Partial<QueueFilter>) => {
    setParams(paramsOf({ ...filter, page: 1, ...next }), { replace: true });
  };
  return [filter, update];
}

/** The overdue queue of one market: bucket counts that filter, loans most days past due first. */
export function CollectionsScreen() {
  const { t } = useTranslation();
  const [filter, setFilter] = useFilter();
  const markets = useOperatorMarkets();
  const queue = useCollectionsQueue(filter);
  const data = queue.data;
  const pages = data ? Math.max(1, Math.ceil(data.total / PAGE_SIZE)) : 1;
  // A page past the end while loans still match (paid down while the agent was on it, or an old link): show the last
  // page in its place, not an empty queue, and keep it out of the history so Back does not return to it.
  const pastEnd = data !== undefined && data.items.length === 0 && data.total > 0 && filter.page > pages;
  return (
    <section>
      <div className="page-head">
        <h1>{t('collections.title')}</h1>
        <div className="filters">
          <label>
            {t('collections.market')}{' '}
            <select value={filter.market} onChange={(e) => setFilter({ market: e.target.value as ApiMarket, bucket: null })}>
              {markets.map((m) => (
                <option key={m} value={m}>
                  {marketName(m, t)}
                </option>
              ))}
            </select>
          </label>{' '}
          <label>
            {t('collections.sort')}{' '}
            <select value={filter.sort} onChange={(e) => setFilter({ sort: e.target.value as QueueSort })}>
              <option value="dpd_desc">{t('collections.sortDesc')}</option>
              <option value="dpd_asc">{t('collections.sortAsc')}</option>
            </select>
          </label>
        </div>
      </div>
      {data && <HoursNotice hours={data.contactHours} />}
      {data && (
        <nav aria-label={t('collections.buckets')} className="bucket-bar">
          <button type="button" className="bucket" aria-pressed={filter.bucket === null} onClick={() => setFilter({ bucket: null })}>
            {t('collections.allBuckets')} <strong>{BUCKETS.reduce((n, b) => n + data.counts[b], 0)}</strong>
          </button>
          {BUCKETS.map((b) => (
            <button key={b} type="button" className="bucket" aria-pressed={filter.bucket === b} onClick={() => setFilter({ bucket: b })}>
              {t('collections.bucket', { bucket: b })} <strong>{data.counts[b]}</strong>
            </button>
          ))}
        </nav>
      )}
      {queue.isPending ? (
        <Loading label={t('collections.loading')} />
      ) : queue.isError ? (
        <LoadFailed error={queue.error} onRetry={() => void queue.refetch()} />
      ) : pastEnd ? (
        <>
          <Navigate to={`${consolePaths.collections}?${paramsOf({ ...filter, page: pages }).toString()}`} replace />
          <Loading label={t('collections.loading')} />
        </>
      ) : queue.data.items.length === 0 && queue.data.total === 0 ? (
        <p className="empty">{t('collections.empty', { market: marketName(filter.market, t) })}</p>
      ) : (
        <>
          {queue.data.items.length === 0 ? (
            // The total and the page are read apart, so loans paid between the two reads can leave a page inside the
            // total empty: the queue is not clear, and the pager and a reload still lead to its loans.
            <div role="status" className="notice notice--warning">
              <p>{t('collections.pageChanged', { page: filter.page, count: queue.data.total })}</p>
              <button type="button" className="button button--quiet" onClick={() => void queue.refetch()}>
                {t('collections.reload')}
              </button>
            </div>
          ) : (
            <table className="table">
              <caption className="visually-hidden">{t('collections.caption', { count: queue.data.total, today: day(queue.data.today) })}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('collections.order')}</th>
                  <th scope="col">{t('collections.borrower')}</th>
                  <th scope="col" className="num">{t('collections.dpd')}</th>
                  <th scope="col">{t('collections.bucketColumn')}</th>
                  <th scope="col" className="num">{t('collections.overdue')}</th>
                  <th scope="col" className="num">{t('collections.outstanding')}</th>
                  <th scope="col">{t('collections.lastReminder')}</th>
                  <th scope="col">{t('collections.lastContact')}</th>
                  <th scope="col">{t('collections.promise')}</th>
                </tr>
              </thead>
              <tbody>
                {queue.data.items.map((loan) => (
                  <QueueRow key={loan.orderNo} loan={loan} />
                ))}
              </tbody>
            </table>
          )}
          {pages > 1 && (
            <nav className="pager" aria-label={t('collections.pages')}>
              <button type="button" className="button button--quiet" disabled={filter.page <= 1} onClick={() => setFilter({ page: filter.page - 1 })}>
                {t('collections.previous')}
              </button>
              <span>{t('collections.pageOf', { page: filter.page, pages })}</span>
              <button type="button" className="button button--quiet" disabled={filter.page >= pages} onClick={() => setFilter({ page: filter.page + 1 })}>
                {t('collections.next')}
              </button>
            </nav>
          )}
        </>
      )}
    </section>
  );
}

function QueueRow({ loan }: { loan: QueuedLoan }) {
  const { t } = useTranslation();
  const reminder = loan.lastReminder;
  const contact = loan.lastContact;
  return (
    <tr>
      <td>
        <Link to={consolePaths.collectionsCase(loan.orderNo)}>{loan.orderNo}</Link>
      </td>
      <td>{loan.phoneMasked ?? t('collections.erased')}</td>
      <td className="num">{loan.daysPastDue}</td>
      <td>{loan.bucket ?? '—'}</td>
      <td className="num">{money(loan.amountOverdue, loan.currency)}</td>
      <td className="num">{money(loan.outstanding, loan.currency)}</td>
      <td>{reminder ? `${t(`collections.reminderKind.${reminder.kind}`, { defaultValue: reminder.kind })} · ${t(`collections.delivery.${reminder.status}`, { defaultValue: reminder.status })}` : '—'}</td>
      <td>{contact ? `${t(`collections.channel.${contact.channel}`)} · ${t(`collections.outcome.${contact.outcome}`)} · ${dateTime(contact.at)}` : '—'}</td>
      <td>
        {loan.promise ? <PromiseBadge promise={loan.promise} currency={loan.currency} /> : '—'}
        {loan.paymentWaiting && (
          <>
            {' '}
            <span className="status status--payment-waiting">{t('collections.paymentWaiting')}</span>
          </>
        )}
      </td>
    </tr>
  );
}

function PromiseBadge({ promise, currency }: { promise: PromiseToPay; currency: Currency }) {
  const { t } = useTranslation();
  return (
    <span>
      <span className={`status status--promise-${promise.state}`}>{t(`collections.promiseState.${promise.state}`)}</span>{' '}
      {t('collections.promiseShort', { amount: money(promise.amount, currency), date: day(promise.date) })}
    </span>
  );
}

/** One loan as collections works it: its figures, the borrower's phone, the contact log, and the two forms. */
export function CollectionsCaseScreen() {
  const { t } = useTranslation();
  const { orderNo = '' } = useParams();
  const found = useCollectionsCase(orderNo);
  if (found.isPending) return <Loading label={t('collections.loadingCase')} />;
  if (found.isError) {
    return (
      <section>
        <h1>{t('collections.caseTitle', { orderNo })}</h1>
        <LoadFailed error={found.error} onRetry={found.error.status === 404 ? undefined : () => void found.refetch()} />
      </section>
    );
  }
  const c = found.data;
  return (
    <article className="order">
      <div className="page-head">
        <h1>
          {t('collections.caseTitle', { orderNo: c.orderNo })} <span className={`status status--${c.status}`}>{t(`status.${c.status}`, { defaultValue: c.status })}</span>
        </h1>
        <Link to={`${consolePaths.collections}?market=${c.market}`}>{t('collections.back')}</Link>
      </div>
      <HoursNotice hours={c.contactHours} />
      <WaitingPayments c={c} />
      <div className="order-grid">
        <CaseSummary c={c} />
        <div>
          <ContactForm c={c} />
          <PromiseForm c={c} />
        </div>
      </div>
      <ContactLog contacts={c.contacts} />
      <Promises promises={c.promises} currency={c.currency} />
      <section className="panel" aria-labelledby="reminders-title">
        <h2 id="reminders-title">{t('collections.reminders')}</h2>
        {c.reminders.length === 0 ? (
          <p className="empty">{t('collections.noReminders')}</p>
        ) : (
          <ul className="plain-list">
            {c.reminders.map((r) => (
              <li key={`${r.installment}-${r.kind}`}>
                {t(`collections.reminderKind.${r.kind}`, { defaultValue: r.kind })} · {t('collections.installmentNo', { n: r.installment })} ·{' '}
                {t(`collections.delivery.${r.status}`, { defaultValue: r.status })} · {dateTime(r.sentAt ?? r.createdAt)}
              </li>
            ))}
          </ul>
        )}
      </section>
    </article>
  );
}

/** The loan's payments waiting for finance: the borrower paid (or says so), so what they cover is not chased. */
function WaitingPayments({ c }: { c: CollectionsCase }) {
  const { t } = useTranslation();
  if (c.waitingPayments.length === 0) return null;
  return (
    <div role="note" className="notice notice--warning" data-testid="waiting-payments">
      <p>{t('collections.waitingTitle')}</p>
      <ul className="plain-list">
        {c.waitingPayments.map((w) => {
          const covers =
            w.installment === null
              ? t('collections.waitingCovers_whole')
              : w.installmentTo === null || w.installmentTo === w.installment
                ? t('collections.waitingCovers_one', { from: w.installment })
                : t('collections.waitingCovers_range', { from: w.installment, to: w.installmentTo });
          return (
            <li key={w.reference}>
              {t('collections.waitingLine', {
                reference: w.reference,
                status: t(`collections.waitingStatus.${w.status}`, { defaultValue: w.status }),
                amount: money(w.receivedAmount ?? w.amount, c.currency),
                covers,
                at: dateTime(w.at),
              })}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

function CaseSummary({ c }: { c: CollectionsCase }) {
  const { t } = useTranslation();
  const reveal = useRevealPhone(c.orderNo);
  const rows: [string, string][] = [
    [t('collections.market'), marketName(c.market, t)],
    [t('collections.product'), c.productName],
    [t('collections.dpd'), c.bucket ? t('collections.dpdValue', { days: c.daysPastDue, bucket: c.bucket }) : t('collections.notPastDue')],
    [t('collections.oldestDue'), c.oldestDueDate ? day(c.oldestDueDate) : '—'],
    [t('collections.overdue'), money(c.amountOverdue, c.currency)],
    [t('collections.outstanding'), money(c.outstanding, c.currency)],
  ];
  const full = reveal.data?.phone;
  // The number is for calling: only within the contact hours and while the loan is open (the server refuses too).
  const canCall = c.contactHours.open && (c.status === 'disbursed' || c.status === 'overdue');
  return (
    <section className="panel" aria-labelledby="case-summary">
      <h2 id="case-summary">{t('collections.summary')}</h2>
      <dl className="facts">
        <div>
          <dt>{t('collections.phone')}</dt>
          <dd>
            {/* Revealed within the hours, the number stays on screen after they close (or the loan is settled): a
                link to call it then only while calling is allowed. */}
            {full ? (canCall ? <a href={`tel:${full}`}>{full}</a> : <span>{full}</span>) : (c.phoneMasked ?? t('collections.erased'))}{' '}
            {full && !c.contactHours.open && <span className="muted">{t('collections.closedForChannel')}</span>}
            {c.phoneMasked && !full && (
              <button type="button" className="button button--quiet" onClick={() => reveal.mutate()} disabled={reveal.isPending || !canCall}>
                {t('collections.showNumber')}
              </button>
            )}
            {reveal.isError && <span className="field-error" role="alert">{fieldsOf(reveal.error).phone ?? errorText(reveal.error, t)}</span>}
          </dd>
        </div>
        {rows.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <p className="muted">{t('collections.onlyBorrower')}</p>
      <table className="table table--compact">
        <caption>{t('collections.installments')}</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">{t('collections.dueDate')}</th>
            <th scope="col" className="num">{t('collections.owed')}</th>
            <th scope="col">{t('collections.state')}</th>
          </tr>
        </thead>
        <tbody>
          {c.installments.map((i) => (
            <tr key={i.number}>
              <td>{i.number}</td>
              <td>{day(i.dueDate)}</td>
              <td className="num">{money(i.outstanding, c.currency)}</td>
              <td>{t(`collections.installmentStatus.${i.status}`, { defaultValue: i.status })}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function fieldsOf(error: unknown): Record<string, string> {
  return error instanceof ApiError ? error.fields : {};
}

function ContactForm({ c }: { c: CollectionsCase }) {
  const { t } = useTranslation();
  const log = useLogContact(c.orderNo);
  const [channel, setChannel] = useState<Channel>('call');
  const [outcome, setOutcome] = useState<Outcome>('reached');
  const [note, setNote] = useState('');
  // When the attempt was made, if not just now (a call that ended after the hours closed is logged at its time).
  const [attemptedAt, setAttemptedAt] = useState('');
  // The promise made on the contact: asked for, and sent, with the outcome "promised" only.
  const promise = usePromiseDraft(c.currency);
  const [notice, setNotice] = useState<string | null>(null);
  const closed = !c.contactHours.open;
  const fields = fieldsOf(log.error);
  const active = c.status === 'disbursed' || c.status === 'overdue';
  /** What to send; null when the promise's amount is not one (its message is then under the field). */
  const inputOf = (): ContactInput | null => {
    const when = attemptedAt ? { attemptedAt } : {};
    if (outcome !== 'promised') return { channel, outcome, note, ...when };
    const promiseAmount = promise.checkedAmount();
    return promiseAmount === null ? null : { channel, outcome, note, promiseDate: promise.date, promiseAmount, ...when };
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setNotice(null);
    const input = inputOf();
    if (!input) return;
    log.mutate(input, {
      onSuccess: (logged) => {
        setNote('');
        setAttemptedAt('');
        promise.clear();
        setNotice(
          logged.promise
            ? t('collections.contactLoggedWithPromise', { amount: money(logged.promise.amount, c.currency), date: day(logged.promise.date) })
            : t('collections.contactLogged'),
        );
      },
    });
  };
  return (
    <form className="panel" aria-labelledby="contact-form-title" onSubmit={submit} noValidate>
      <h2 id="contact-form-title">{t('collections.logContact')}</h2>
      {notice && (
        <p role="status" className="notice notice--success">
          {notice}
        </p>
      )}
      <div className="field">
        <label htmlFor="contact-channel">{t('collections.channelLabel')}</label>
        <select id="contact-channel" value={channel} onChange={(e) => setChannel(e.target.value as Channel)} aria-describedby={closed ? 'contact-closed' : undefined} aria-invalid={fields.channel ? true : undefined}>
          {CHANNELS.map((ch) => (
            <option key={ch} value={ch}>
              {t(`collections.channel.${ch}`)}
            </option>
          ))}
        </select>
        {closed && (
          <p id="contact-closed" className="field-hint">
            {t('collections.closedForChannel')}
          </p>
        )}
        {fields.channel && <p className="field-error" role="alert">{fields.channel}</p>}
      </div>
      <div className="field">
        <label htmlFor="contact-outcome">{t('collections.outcomeLabel')}</label>
        <select id="contact-outcome" value={outcome} onChange={(e) => setOutcome(e.target.value as Outcome)}>
          {OUTCOMES.map((o) => (
            <option key={o} value={o}>
              {t(`collections.outcome.${o}`)}
            </option>
          ))}
        </select>
        {fields.outcome && <p className="field-error">{fields.outcome}</p>}
      </div>
      {outcome === 'promised' && <PromiseFields c={c} draft={promise} idPrefix="contact-promise" dateError={fields.promiseDate} amountError={fields.promiseAmount} />}
      <div className="field">
        <label htmlFor="contact-time">{t('collections.attemptedAtLabel')}</label>
        <input
          id="contact-time"
          type="time"
          value={attemptedAt}
          onChange={(e) => setAttemptedAt(e.target.value)}
          aria-describedby="contact-time-hint"
          aria-invalid={fields.attemptedAt ? true : undefined}
        />
        <p id="contact-time-hint" className="field-hint">
          {t(closed ? 'collections.attemptedAtClosed' : 'collections.attemptedAtHint', { market: marketName(c.contactHours.market, t) })}
        </p>
        {fields.attemptedAt && <p className="field-error" role="alert">{fields.attemptedAt}</p>}
      </div>
      <div className="field">
        <label htmlFor="contact-note">{t('collections.noteLabel')}</label>
        <textarea id="contact-note" rows={3} maxLength={1000} value={note} onChange={(e) => setNote(e.target.value)} />
        {fields.note && <p className="field-error">{fields.note}</p>}
      </div>
      {log.isError && Object.keys(fields).length === 0 && (
        <p className="field-error" role="alert">
          {errorText(log.error, t)}
        </p>
      )}
      <button type="submit" className="button" disabled={log.isPending || (closed && !attemptedAt) || !active}>
        {t('collections.logButton')}
      </button>
    </form>
  );
}

/** A promise's date and amount as the agent types them; the amount is checked here, before anything is sent. */
function usePromiseDraft(currency: Currency) {
  const { t } = useTranslation();
  const [date, setDate] = useState('');
  const [amount, setAmount] = useState('');
  const [amountProblem, setAmountProblem] = useState<string | null>(null);
  return {
    date,
    setDate,
    amount,
    setAmount,
    amountProblem,
    /** The amount in minor units; null, with the message kept for under the field, when it is not one above zero. */
    checkedAmount: (): number | null => {
      const minor = minorOf(amount, currency);
      const valid = minor !== null && minor > 0;
      setAmountProblem(valid ? null : t(currency === 'IDR' ? 'collections.amountInvalidIdr' : 'collections.amountInvalid'));
      return valid ? minor : null;
    },
    clear: () => {
      setDate('');
      setAmount('');
      setAmountProblem(null);
    },
  };
}

type PromiseDraft = ReturnType<typeof usePromiseDraft>;

/** The date and amount fields of a promise, each with the server's refusal of it (the amount's own check first). */
function PromiseFields({ c, draft, idPrefix, dateError, amountError }: { c: CollectionsCase; draft: PromiseDraft; idPrefix: string; dateError?: string; amountError?: string }) {
  const { t } = useTranslation();
  const amountProblem = draft.amountProblem ?? amountError;
  return (
    <>
      <div className="field">
        <label htmlFor={`${idPrefix}-date`}>{t('collections.promiseDate')}</label>
        <input
          id={`${idPrefix}-date`}
          type="date"
          value={draft.date}
          min={c.today}
          onChange={(e) => draft.setDate(e.target.value)}
          aria-describedby={dateError ? `${idPrefix}-date-error` : undefined}
          aria-invalid={dateError ? true : undefined}
        />
        {dateError && (
          <p id={`${idPrefix}-date-error`} className="field-error" role="alert">
            {dateError}
          </p>
        )}
      </div>
      <div className="field">
        <label htmlFor={`${idPrefix}-amount`}>{t('collections.promiseAmount', { currency: c.currency === 'INR' ? '₹' : 'Rp' })}</label>
        <input
          id={`${idPrefix}-amount`}
          inputMode="decimal"
          value={draft.amount}
          onChange={(e) => draft.setAmount(e.target.value)}
          aria-describedby={amountProblem ? `${idPrefix}-amount-hint ${idPrefix}-amount-error` : `${idPrefix}-amount-hint`}
          aria-invalid={amountProblem ? true : undefined}
        />
        <p id={`${idPrefix}-amount-hint`} className="field-hint">
          {t('collections.promiseAmountHint', { overdue: money(c.amountOverdue, c.currency), outstanding: money(c.outstanding, c.currency) })}
        </p>
        {amountProblem && (
          <p id={`${idPrefix}-amount-error`} className="field-error" role="alert">
            {amountProblem}
          </p>
        )}
      </div>
    </>
  );
}

function PromiseForm({ c }: { c: CollectionsCase }) {
  const { t } = useTranslation();
  const save = usePromiseToPay(c.orderNo);
  const promise = usePromiseDraft(c.currency);
  const [notice, setNotice] = useState<string | null>(null);
  const fields = fieldsOf(save.error);
  const active = c.status === 'disbursed' || c.status === 'overdue';
  // A promise is made in a contact: within the calling hours.
  const closed = !c.contactHours.open;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setNotice(null);
    const amount = promise.checkedAmount();
    if (amount === null) return;
    save.mutate(
      { date: promise.date, amount },
      {
        onSuccess: (p) => {
          promise.clear();
          setNotice(t('collections.promiseSaved', { amount: money(p.amount, c.currency), date: day(p.date) }));
        },
      },
    );
  };
  return (
    <form className="panel" aria-labelledby="promise-form-title" onSubmit={submit} noValidate>
      <h2 id="promise-form-title">{t('collections.promiseTitle')}</h2>
      {notice && (
        <p role="status" className="notice notice--success">
          {notice}
        </p>
      )}
      <PromiseFields c={c} draft={promise} idPrefix="promise" dateError={fields.date} amountError={fields.amount} />
      {save.isError && Object.keys(fields).length === 0 && (
        <p className="field-error" role="alert">
          {errorText(save.error, t)}
        </p>
      )}
      {closed && <p className="field-hint">{t('collections.promiseClosed')}</p>}
      <button type="submit" className="button" disabled={save.isPending || !active || closed}>
        {t('collections.promiseButton')}
      </button>
    </form>
  );
}

function ContactLog({ contacts }: { contacts: ContactLogged[] }) {
  const { t } = useTranslation();
  return (
    <section className="panel" aria-labelledby="contact-log-title">
      <h2 id="contact-log-title">{t('collections.contactLog')}</h2>
      {contacts.length === 0 ? (
        <p className="empty">{t('collections.noContacts')}</p>
      ) : (
        <table className="table table--compact">
          <caption className="visually-hidden">{t('collections.contactLog')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('collections.when')}</th>
              <th scope="col">{t('collections.channelLabel')}</th>
              <th scope="col">{t('collections.outcomeLabel')}</th>
              <th scope="col">{t('collections.noteLabel')}</th>
              <th scope="col">{t('collections.by')}</th>
            </tr>
          </thead>
          <tbody>
            {contacts.map((c) => (
              <tr key={c.id}>
                <td>
                  {dateTime(c.at)} <span className="muted">({t('collections.localTime', { time: c.localTime })})</span>
                </td>
                <td>{t(`collections.channel.${c.channel}`, { defaultValue: c.channel })}</td>
                <td>{t(`collections.outcome.${c.outcome}`, { defaultValue: c.outcome })}</td>
                <td>{c.note ?? '—'}</td>
                <td>{c.by ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Promises({ promises, currency }: { promises: PromiseToPay[]; currency: Currency }) {
  const { t } = useTranslation();
  return (
    <section className="panel" aria-labelledby="promises-title">
      <h2 id="promises-title">{t('collections.promises')}</h2>
      {promises.length === 0 ? (
        <p className="empty">{t('collections.noPromises')}</p>
      ) : (
        <table className="table table--compact">
          <caption className="visually-hidden">{t('collections.promises')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('collections.promiseDate')}</th>
              <th scope="col" className="num">{t('collections.promised')}</th>
              <th scope="col" className="num">{t('collections.received')}</th>
              <th scope="col">{t('collections.state')}</th>
              <th scope="col">{t('collections.madeOn')}</th>
              <th scope="col">{t('collections.by')}</th>
            </tr>
          </thead>
          <tbody>
            {promises.map((p) => (
              <tr key={p.id}>
                <td>{day(p.date)}</td>
                <td className="num">{money(p.amount, currency)}</td>
                <td className="num">{money(p.received, currency)}</td>
                <td>
                  <span className={`status status--promise-${p.state}`}>{t(`collections.promiseState.${p.state}`)}</span>
                </td>
                <td>{day(p.madeOn)}</td>
                <td>{p.by ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** The order view's section: every contact attempt and promise on the loan. */
export function ContactHistorySection({ orderNo, currency }: { orderNo: string; currency: Currency }) {
  const { t } = useTranslation();
  const history = useContactHistory(orderNo, true);
  return (
    <section className="panel" aria-labelledby="contact-history-title">
      <h2 id="contact-history-title">{t('collections.historyTitle')}</h2>
      {history.isPending ? (
        <Loading label={t('collections.loadingHistory')} />
      ) : history.isError ? (
        <LoadFailed error={history.error} onRetry={() => void history.refetch()} />
      ) : history.data.contacts.length === 0 && history.data.promises.length === 0 ? (
        <p className="empty">{t('collections.noContacts')}</p>
      ) : (
        <>
          <ul className="plain-list">
            {history.data.contacts.map((c) => (
              <li key={c.id}>
                {dateTime(c.at)} · {t(`collections.channel.${c.channel}`, { defaultValue: c.channel })} · {t(`collections.outcome.${c.outcome}`, { defaultValue: c.outcome })}
                {c.note ? ` — ${c.note}` : ''} {c.by ? <span className="muted">({c.by})</span> : null}
              </li>
            ))}
          </ul>
          {history.data.promises.length > 0 && (
            <ul className="plain-list">
              {history.data.promises.map((p) => (
                <li key={p.id}>
                  <PromiseBadge promise={p} currency={currency} />
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
