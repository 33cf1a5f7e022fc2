import { useTranslation } from 'react-i18next';
import { Link, useLocation, useSearchParams } from 'react-router';
import { QUEUE_PAGE_SIZE, useQueue, useQueueCounts } from '../api/applications';
import type { ApiMarket, QueueEntry } from '../api/types';
import { marketIn, useOperator, useOperatorMarkets } from '../operator-context';
import { age, dateTime, marketName, money, term, time } from '../format';
import { consolePaths, type FromQueue } from '../paths';
import { Pager, pageOf } from './pager';
import { LoadFailed, Loading } from './states';

/**
 * The site's promise, in seconds: India's site promises the money "within 2 hours" of applying. An application
 * waiting longer than this is past it, and its row says so (India's only: Indonesia's site promises no time).
 */
const REVIEW_PROMISE_SECONDS = 2 * 60 * 60;

function queueLink(market: ApiMarket, page = 1): string {
  return `${consolePaths.queue}?market=${market}${page > 1 ? `&page=${page}` : ''}`;
}

/**
 * Applications waiting for review in one market, oldest first, a page at a time: how long each has waited (flagged,
 * in words and a highlight, past the site's promise) and which reviewer holds it. The market tabs count what waits in
 * each.
 */
export function QueueScreen() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const markets = useOperatorMarkets();
  const market = marketIn(params, markets);
  const page = pageOf(params);
  const queue = useQueue(market, page);
  const counts = useQueueCounts();
  const waiting = (m: ApiMarket) => counts.data?.find((c) => c.market === m);
  const total = waiting(market)?.waiting;
  const pages = total === undefined ? undefined : Math.max(1, Math.ceil(total / QUEUE_PAGE_SIZE));
  const hasNext = pages !== undefined ? page < pages : (queue.data?.length ?? 0) === QUEUE_PAGE_SIZE;

  return (
    <section>
      <div className="page-head">
        <h1>{t('queue.title')}</h1>
        {queue.dataUpdatedAt > 0 && (
          <p className="muted">
            {t('queue.updated', { at: dateTime(queue.dataUpdatedAt) })}{' '}
            <button
              type="button"
              className="button button--quiet"
              onClick={() => {
                void queue.refetch();
                void counts.refetch();
              }}
              disabled={queue.isFetching}
            >
              {t('queue.refresh')}
            </button>
          </p>
        )}
      </div>
      <nav aria-label={t('queue.markets')} className="tabs">
        {markets.map((m) => {
          const count = waiting(m);
          return (
            <Link key={m} to={queueLink(m)} aria-current={m === market ? 'page' : undefined}>
              {count ? t('queue.tab', { market: marketName(m, t), count: count.waiting }) : marketName(m, t)}
            </Link>
          );
        })}
      </nav>
      {counts.data && waiting(market) && (
        <p className="muted">{t('queue.claimedCount', { count: waiting(market)?.claimed ?? 0 })}</p>
      )}
      {queue.isPending ? (
        <Loading label={t('queue.loading')} />
      ) : queue.isError ? (
        <LoadFailed error={queue.error} onRetry={() => void queue.refetch()} />
      ) : queue.data.length === 0 && page === 1 ? (
        <p className="empty">{t('queue.empty', { market: marketName(market, t) })}</p>
      ) : (
        <>
          <QueueTable entries={queue.data} market={market} total={total} page={page} />
          {(page > 1 || hasNext) && (
            <Pager page={page} pages={pages} hasNext={hasNext} link={(n) => queueLink(market, n)} />
          )}
        </>
      )}
    </section>
  );
}

function QueueTable({ entries, market, total, page }: { entries: QueueEntry[]; market: ApiMarket; total: number | undefined; page: number }) {
  const { t } = useTranslation();
  const operator = useOperator();
  // Each order's "Back to the review queue" returns here: this page of this market.
  const from: FromQueue = { queue: useLocation().search };
  const count = total ?? entries.length;
  return (
    <table className="table">
      <caption>
        {t('queue.caption', { count, market: marketName(market, t) })}
        {page > 1 || entries.length < count ? ` · ${t('queue.showing', { from: (page - 1) * QUEUE_PAGE_SIZE + 1, to: (page - 1) * QUEUE_PAGE_SIZE + entries.length })}` : ''}
      </caption>
      <thead>
        <tr>
          <th scope="col">{t('queue.order')}</th>
          <th scope="col">{t('queue.waiting')}</th>
          <th scope="col">{t('queue.product')}</th>
          <th scope="col" className="num">
            {t('queue.amount')}
          </th>
          <th scope="col">{t('queue.term')}</th>
          <th scope="col" className="num">
            {t('queue.apr')}
          </th>
          <th scope="col">{t('queue.borrower')}</th>
          <th scope="col">{t('queue.confirmed')}</th>
          <th scope="col">{t('queue.claimedBy')}</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => {
          // Only where the site promises a time: India's.
          const late = market === 'IN' && entry.ageSeconds > REVIEW_PROMISE_SECONDS;
          return (
            <tr key={entry.orderNo} className={late ? 'row--flagged' : undefined}>
              <td>
                <Link to={consolePaths.order(entry.orderNo)} state={from}>
                  {entry.orderNo}
                </Link>
              </td>
              <td>
                {age(entry.ageSeconds, t)}
                {late && (
                  <>
                    {' '}
                    <span className="badge badge--warn">{t('queue.overPromise', { hours: REVIEW_PROMISE_SECONDS / 3600 })}</span>
                  </>
                )}
              </td>
              <td>{entry.productName}</td>
              <td className="num">{money(entry.amount, entry.currency)}</td>
              <td>{term(entry.termCode, t)}</td>
              <td className="num">{entry.aprDisplay}</td>
              <td>{entry.phoneMasked || '—'}</td>
              <td>{dateTime(entry.createdAt)}</td>
              <td>
                {entry.claim
                  ? t(entry.claim.operatorId === operator.id ? 'queue.claimYou' : 'queue.claimOther', {
                      username: entry.claim.username,
                      until: time(entry.claim.until),
                    })
                  : '—'}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
