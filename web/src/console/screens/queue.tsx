import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { useQueue } from '../api/applications';
import type { ApiMarket } from '../api/types';
import { age, dateTime, marketName, money, term } from '../format';
import { consolePaths } from '../paths';
import { LoadFailed, Loading } from './states';

const MARKETS: readonly ApiMarket[] = ['IN', 'ID'];

/** `?market=ID` picks Indonesia; anything else India. */
function marketOf(params: URLSearchParams): ApiMarket {
  return params.get('market') === 'ID' ? 'ID' : 'IN';
}

/** Applications waiting for review in one market, oldest first, with how long each has waited. */
export function QueueScreen() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const market = marketOf(params);
  const queue = useQueue(market);

  return (
    <section>
      <div className="page-head">
        <h1>{t('queue.title')}</h1>
        {queue.dataUpdatedAt > 0 && (
          <p className="muted">
            {t('queue.updated', { at: dateTime(queue.dataUpdatedAt) })}{' '}
            <button type="button" className="button button--quiet" onClick={() => void queue.refetch()} disabled={queue.isFetching}>
              {t('queue.refresh')}
            </button>
          </p>
        )}
      </div>
      <nav aria-label={t('queue.markets')} className="tabs">
        {MARKETS.map((m) => (
          <Link key={m} to={`${consolePaths.queue}?market=${m}`} aria-current={m === market ? 'page' : undefined}>
            {marketName(m, t)}
          </Link>
        ))}
      </nav>
      {queue.isPending ? (
        <Loading label={t('queue.loading')} />
      ) : queue.isError ? (
        <LoadFailed error={queue.error} onRetry={() => void queue.refetch()} />
      ) : queue.data.length === 0 ? (
        <p className="empty">{t('queue.empty', { market: marketName(market, t) })}</p>
      ) : (
        <table className="table">
          <caption>{t('queue.caption', { count: queue.data.length, market: marketName(market, t) })}</caption>
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
            </tr>
          </thead>
          <tbody>
            {queue.data.map((entry) => (
              <tr key={entry.orderNo}>
                <td>
                  <Link to={consolePaths.order(entry.orderNo)}>{entry.orderNo}</Link>
                </td>
                <td>{age(entry.ageSeconds, t)}</td>
                <td>{entry.productName}</td>
                <td className="num">{money(entry.amount, entry.currency)}</td>
                <td>{term(entry.termCode, t)}</td>
                <td className="num">{entry.aprDisplay}</td>
                <td>{entry.phoneMasked}</td>
                <td>{dateTime(entry.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
