import { useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { errorText } from '@/shared/api/error-text';
import type { ApiError } from '@/shared/api/http';
import { MAX_RESOLUTION, useResolveUnmatched, useUnmatchedReceipts, type UnmatchedReceipt, type UnmatchedStatus } from '../api/unmatched';
import type { ApiMarket } from '../api/types';
import { CONSOLE_LOCALE, marketName, money } from '../format';
import { consolePaths } from '../paths';

/** The server lists at most this many, newest first. */
const LIST_LIMIT = 200;

/** Each market's clock, as finance and the payer read the provider's times there. */
const CLOCKS: Record<ApiMarket, { zone: string; label: string }> = {
  IN: { zone: 'Asia/Kolkata', label: 'IST' },
  ID: { zone: 'Asia/Jakarta', label: 'WIB' },
};

const clockFormats = new Map<ApiMarket, Intl.DateTimeFormat>();

function clockFormat(market: ApiMarket): Intl.DateTimeFormat {
  let found = clockFormats.get(market);
  if (!found) {
    found = new Intl.DateTimeFormat(CONSOLE_LOCALE, {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
      timeZone: CLOCKS[market].zone,
    });
    clockFormats.set(market, found);
  }
  return found;
}

/**
 * Epoch ms → `25 Nov 2026, 14:05 IST` on the market's clock. Money of no known market (Dragonpay's postback names no
 * currency) is given on both clocks, since either market's finance may be the one to find it.
 */
export function marketTime(ms: number, market: ApiMarket | null | undefined): string {
  const markets: ApiMarket[] = market ? [market] : ['IN', 'ID'];
  return markets.map((m) => `${clockFormat(m).format(new Date(ms))} ${CLOCKS[m].label}`).join(' · ');
}

type T = ReturnType<typeof useTranslation>['t'];

/** The amount as the provider reported it; another currency than a market's is shown in its own code. */
function amountText(receipt: UnmatchedReceipt, t: T): string {
  const { amount, currency } = receipt;
  if (amount === null || amount === undefined) return t('unmatched.noAmount');
  if (currency === 'INR' || currency === 'IDR') return money(amount, currency);
  if (currency) return `${currency} ${(amount / 100).toFixed(2)}`;
  return t('unmatched.noCurrency', { amount: (amount / 100).toFixed(2) });
}

function providerName(provider: string, t: T): string {
  return t(`unmatched.providers.${provider}`, { defaultValue: provider });
}

/** What the section says above its list: a resolve saved, or refused because someone else resolved it first. */
type Notice = { kind: 'done' | 'taken'; text: string };

/**
 * Money a provider reported, signed, for a reference no payment has, for the market the repayments screen is
 * filtered to (every market of the operator's without one). Nothing of it is credited anywhere: finance returns it or
 * credits it by hand, then records here what they did. It is never hidden while it waits: with nothing waiting a
 * single line says so.
 */
export function UnmatchedReceipts({ market }: { market: ApiMarket | undefined }) {
  const { t } = useTranslation();
  const [status, setStatus] = useState<UnmatchedStatus>('waiting');
  const list = useUnmatchedReceipts(market, status);
  const [notice, setNotice] = useState<Notice | null>(null);
  const showAll = status === 'all';
  const waiting = list.data?.filter((r) => (r.resolvedAt ?? null) === null).length ?? 0;
  const toggle = (
    <button type="button" className="button button--quiet" aria-pressed={showAll} onClick={() => setStatus(showAll ? 'waiting' : 'all')}>
      {t('unmatched.showResolved')}
    </button>
  );
  const noticeLine = notice && (
    <p role={notice.kind === 'taken' ? 'alert' : 'status'} className={notice.kind === 'taken' ? 'notice notice--error' : 'notice notice--success'}>
      {notice.text}
    </p>
  );

  if (list.isPending) {
    return (
      <p role="status" className="muted unmatched-line">
        {t('unmatched.loading')}
      </p>
    );
  }
  if (list.isError) {
    // Not an alert: the page's own queue reports its failure as one; this stays in view with its own retry.
    return (
      <div className="notice notice--error unmatched-line">
        <p>{t('unmatched.failed', { error: errorText(list.error, t) })}</p>
        <button type="button" className="button button--quiet" onClick={() => void list.refetch()}>
          {t('unmatched.retry')}
        </button>
      </div>
    );
  }
  if (!showAll && list.data.length === 0) {
    return (
      <>
        {noticeLine}
        <div className="unmatched-line">
          <p className="muted">{t('unmatched.noneWaiting')}</p>
          {toggle}
        </div>
      </>
    );
  }

  return (
    <section className="panel unmatched" aria-labelledby="unmatched-title">
      <div className="page-head">
        <h2 id="unmatched-title">{t('unmatched.title')}</h2>
        {toggle}
      </div>
      <p className="muted">{t('unmatched.intro', { count: waiting })}</p>
      {noticeLine}
      {list.data.length === 0 ? (
        <p className="muted">{t('unmatched.noneAtAll')}</p>
      ) : (
        <ul className="payment-list" aria-label={t('unmatched.caption', { count: list.data.length })}>
          {list.data.map((receipt) => (
            <ReceiptItem key={receipt.id} receipt={receipt} onNotice={setNotice} />
          ))}
        </ul>
      )}
      {list.data.length >= LIST_LIMIT && <p className="muted">{t('unmatched.limit', { count: LIST_LIMIT })}</p>}
    </section>
  );
}

function ReceiptItem({ receipt, onNotice }: { receipt: UnmatchedReceipt; onNotice: (notice: Notice) => void }) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const resolvedAt = receipt.resolvedAt ?? null;
  const resolved = resolvedAt !== null;
  const titleId = `unmatched-${receipt.id}-title`;
  const amount = amountText(receipt, t);
  const provider = providerName(receipt.provider, t);

  const reversed = receipt.kind === 'reversed';
  const facts: [string, ReactNode][] = [
    [t('unmatched.provider'), provider],
    [t('unmatched.amount'), amount],
    [t('unmatched.reference'), receipt.reference || t('unmatched.noReference')],
    [t('unmatched.providerPaymentId'), receipt.providerPaymentId || t('unmatched.notGiven')],
    [t('unmatched.received'), marketTime(receipt.receivedAt, receipt.market)],
  ];
  if (receipt.sentAt !== null && receipt.sentAt !== undefined) facts.push([t('unmatched.sent'), marketTime(receipt.sentAt, receipt.market)]);
  facts.push([t('unmatched.market'), receipt.market ? marketName(receipt.market, t) : t('unmatched.unknownMarket')]);
  // Money taken back names the loan that still counts it.
  if (receipt.orderNo) facts.unshift([t('unmatched.order'), <Link to={consolePaths.order(receipt.orderNo)}>{receipt.orderNo}</Link>]);

  return (
    <li className="panel payment" aria-labelledby={titleId}>
      <h3 id={titleId}>
        {t(reversed ? 'unmatched.itemTitleReversed' : 'unmatched.itemTitle', { amount, provider })}{' '}
        <span className={`badge ${resolved ? 'badge--ok' : 'badge--warn'}`}>{t(resolved ? 'unmatched.resolved' : 'unmatched.waiting')}</span>
      </h3>
      <dl className="facts facts--compact">
        {facts.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {resolvedAt !== null ? (
        <p className="unmatched-resolution">
          {t('unmatched.resolvedBy', {
            who: receipt.resolvedByUsername ?? t('unmatched.someone'),
            when: marketTime(resolvedAt, receipt.market),
            resolution: receipt.resolution ?? '',
          })}
        </p>
      ) : open ? (
        <ResolveForm
          receipt={receipt}
          onCancel={() => setOpen(false)}
          onDone={(notice) => {
            setOpen(false);
            onNotice(notice);
          }}
        />
      ) : (
        <div className="actions">
          <button type="button" className="button button--primary" onClick={() => setOpen(true)}>
            {t('unmatched.record')}
          </button>
        </div>
      )}
    </li>
  );
}

/** What finance did with the money, in their words, checked as the server checks it (trimmed, 1 to 500 characters). */
function ResolveForm({ receipt, onCancel, onDone }: { receipt: UnmatchedReceipt; onCancel: () => void; onDone: (notice: Notice) => void }) {
  const { t } = useTranslation();
  const resolve = useResolveUnmatched();
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  // Money the provider took back from a credited payment: its credit can come off the loan's ledger with it.
  const reversed = receipt.kind === 'reversed' && Boolean(receipt.orderNo);
  const [takeBack, setTakeBack] = useState(false);
  const id = `unmatched-${receipt.id}-resolution`;
  const values = { amount: amountText(receipt, t), provider: providerName(receipt.provider, t) };

  const send = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = text.trim();
    if (!trimmed) return setError(t('unmatched.resolutionRequired'));
    if ([...trimmed].length > MAX_RESOLUTION) return setError(t('unmatched.resolutionTooLong', { max: MAX_RESOLUTION }));
    setError(null);
    resolve.mutate(
      { id: receipt.id, resolution: trimmed, takeBack: reversed && takeBack },
      {
        onSuccess: () =>
          onDone({
            kind: 'done',
            text: reversed && takeBack ? t('unmatched.doneTakenBack', { ...values, orderNo: receipt.orderNo }) : t('unmatched.done', values),
          }),
        // Another operator resolved it first: the list is read again (it leaves the waiting list), so the section says it.
        onError: (failure) => {
          if (failure.code === 'receipt_resolved') onDone({ kind: 'taken', text: t('unmatched.taken', values) });
        },
      },
    );
  };
  const serverError = resolve.error?.fields.resolution ?? null;
  const fieldError = error ?? serverError;

  return (
    <>
      {!serverError && <Failure error={resolve.error} />}
      <form onSubmit={send} noValidate>
        <div className="field">
          <label htmlFor={id}>{t('unmatched.resolution')}</label>
          <textarea
            id={id}
            rows={2}
            value={text}
            aria-invalid={fieldError ? true : undefined}
            aria-describedby={`${id}-hint`}
            onChange={(event) => setText(event.target.value)}
          />
          <p className={fieldError ? 'field-error' : 'muted'} id={`${id}-hint`}>
            {fieldError ?? t('unmatched.resolutionHint', { max: MAX_RESOLUTION })}
          </p>
        </div>
        {reversed && (
          <div className="field field--check">
            <label>
              <input type="checkbox" checked={takeBack} onChange={(event) => setTakeBack(event.target.checked)} />{' '}
              {t('unmatched.takeBack', { orderNo: receipt.orderNo })}
            </label>
            <p className="muted">{t('unmatched.takeBackHint')}</p>
          </div>
        )}
        <div className="actions">
          <button type="submit" className="button button--primary" disabled={resolve.isPending}>
            {t('unmatched.save')}
          </button>
          <button type="button" className="button button--quiet" onClick={onCancel} disabled={resolve.isPending}>
            {t('unmatched.cancel')}
          </button>
        </div>
      </form>
    </>
  );
}

/** A refusal that is no field's and not the 409 the section reports (a receipt of another market, a lost connection). */
function Failure({ error }: { error: ApiError | null }) {
  const { t } = useTranslation();
  if (!error || error.code === 'receipt_resolved') return null;
  return (
    <p role="alert" className="notice notice--error">
      {errorText(error, t)}
    </p>
  );
}
