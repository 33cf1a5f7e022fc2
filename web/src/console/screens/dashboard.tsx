import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { useDashboard } from '../api/dashboard';
import type { ApiMarket, Currency, DashboardBook, DashboardDay, DashboardPayoutTimes, DashboardRates, DashboardView } from '../api/types';
import { day, marketName, money } from '../format';
import { marketIn, useOperatorMarkets } from '../operator-context';
import { consolePaths } from '../paths';
import { DayChart } from './day-chart';
import { MonthEndExport } from './payouts';
import { LoadFailed, Loading } from './states';

export function duration(minutes: number, t: TFunction): string {
  if (minutes < 60) return t('dashboard.minutes', { count: minutes });
  return t('dashboard.hours', { hours: Math.floor(minutes / 60), minutes: minutes % 60 });
}

/** Basis points of `part / whole`, as a percentage with one decimal; integers only until the display. */
export function share(part: number, whole: number): number | null {
  return whole === 0 ? null : Math.round((part * 1000) / whole) / 10;
}

const percent = (value: number) => `${value.toFixed(1)}%`;
const count = (value: number) => new Intl.NumberFormat('en-IN').format(value);
const sum = (days: readonly DashboardDay[], pick: (d: DashboardDay) => number) => days.reduce((total, d) => total + pick(d), 0);

/** The book of a market today and its last 30 days, as figures, tables and charts (admins, finance). */
export function DashboardScreen() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const markets = useOperatorMarkets();
  const market = marketIn(params, markets);
  const board = useDashboard(market);
  return (
    <section>
      <div className="page-head">
        <h1>{t('dashboard.title')}</h1>
      </div>
      <nav aria-label={t('queue.markets')} className="tabs">
        {markets.map((m) => (
          <Link key={m} to={`${consolePaths.dashboard}?market=${m}`} aria-current={m === market ? 'page' : undefined}>
            {marketName(m, t)}
          </Link>
        ))}
      </nav>
      {board.isPending ? (
        <Loading label={t('dashboard.loading')} />
      ) : board.isError ? (
        <LoadFailed error={board.error} onRetry={() => void board.refetch()} />
      ) : (
        <>
          <BookFigures board={board.data} market={market} t={t} />
          <Figures days={board.data.days} currency={board.data.currency} market={market} promise={board.data.payoutTimes.promiseMinutes ?? null} t={t} />
        </>
      )}
      {/* Admins export too (finance has the same form on Payouts). */}
      <MonthEndExport market={market} />
    </section>
  );
}

function Figures({ days, currency, market, promise, t }: { days: DashboardDay[]; currency: Currency; market: ApiMarket; promise: number | null; t: TFunction }) {
  const cash = (minor: number) => money(minor, currency);
  const shares = days.map((d) => share(d.overdueLoans, d.openLoans));
  const medians = days.map((d) => d.medianMinutesToPayout ?? null);
  const lastMedian = [...medians].reverse().find((m) => m !== null);
  const label = (title: string, max: string) => t('dashboard.chartLabel', { title, max });
  const maxOf = (values: readonly (number | null)[]) => Math.max(0, ...values.filter((v): v is number => v !== null));
  const dates = days.map((d) => d.date);
  const common = { dates, none: t('dashboard.none'), hint: t('dashboard.chartHint') };
  const principal = days.map((d) => d.outstandingPrincipal);
  const charts = [
    { title: t('dashboard.applications'), values: days.map((d) => d.applications), format: count, summary: t('dashboard.total', { value: count(sum(days, (d) => d.applications)) }) },
    { title: t('dashboard.approvals'), values: days.map((d) => d.approvals), format: count, summary: t('dashboard.total', { value: count(sum(days, (d) => d.approvals)) }) },
    { title: t('dashboard.paidOut'), values: days.map((d) => d.paidOut), format: cash, summary: t('dashboard.total', { value: cash(sum(days, (d) => d.paidOut)) }) },
    { title: t('dashboard.repaid'), values: days.map((d) => d.repaid), format: cash, summary: t('dashboard.total', { value: cash(sum(days, (d) => d.repaid)) }) },
    { title: t('dashboard.complaints'), values: days.map((d) => d.complaints), format: count, summary: t('dashboard.total', { value: count(sum(days, (d) => d.complaints)) }) },
  ];
  return (
    <>
      <h2>{t('dashboard.daysTitle')}</h2>
      <p className="muted">{t('dashboard.intro', { market: marketName(market, t) })}</p>
      <div className="charts">
        <DayChart
          {...common}
          kind="line"
          title={t('dashboard.outstandingPrincipal')}
          values={principal}
          format={cash}
          summary={t('dashboard.latest', { value: cash(principal[principal.length - 1] ?? 0) })}
          label={label(t('dashboard.outstandingPrincipal'), cash(maxOf(principal)))}
        />
        {charts.map((c) => (
          <DayChart key={c.title} {...common} kind="bar" {...c} label={label(c.title, c.format(maxOf(c.values)))} />
        ))}
        <DayChart
          {...common}
          kind="line"
          title={t('dashboard.overdueShare')}
          values={shares}
          format={percent}
          summary={t('dashboard.latest', { value: shares[shares.length - 1] === null ? t('dashboard.none') : percent(shares[shares.length - 1]!) })}
          label={label(t('dashboard.overdueShare'), percent(maxOf(shares)))}
        />
        <DayChart
          {...common}
          kind="line"
          title={t('dashboard.medianToPayout')}
          values={medians}
          format={(m) => duration(m, t)}
          summary={lastMedian == null ? t('dashboard.noPayouts') : t('dashboard.latest', { value: duration(lastMedian, t) })}
          reference={promise ? { value: promise, label: t('dashboard.promise', { value: duration(promise, t) }) } : undefined}
          label={label(t('dashboard.medianToPayout'), duration(maxOf(medians), t))}
        />
      </div>
      <details className="dashboard-table">
        <summary>{t('dashboard.table')}</summary>
        <table className="table">
          <thead>
            <tr>
              <th scope="col">{t('dashboard.date')}</th>
              <th scope="col" className="num">{t('dashboard.applications')}</th>
              <th scope="col" className="num">{t('dashboard.approvals')}</th>
              <th scope="col" className="num">{t('dashboard.paidOut')}</th>
              <th scope="col" className="num">{t('dashboard.repaid')}</th>
              <th scope="col" className="num">{t('dashboard.open')}</th>
              <th scope="col" className="num">{t('dashboard.overdue')}</th>
              <th scope="col" className="num">{t('dashboard.complaints')}</th>
              <th scope="col" className="num">{t('dashboard.medianToPayout')}</th>
              <th scope="col" className="num">{t('dashboard.outstandingPrincipal')}</th>
            </tr>
          </thead>
          <tbody>
            {[...days].reverse().map((d) => (
              <tr key={d.date}>
                <th scope="row">{day(d.date)}</th>
                <td className="num">{count(d.applications)}</td>
                <td className="num">{count(d.approvals)}</td>
                <td className="num">{cash(d.paidOut)}</td>
                <td className="num">{cash(d.repaid)}</td>
                <td className="num">{count(d.openLoans)}</td>
                <td className="num">{d.openLoans === 0 ? t('dashboard.none') : `${count(d.overdueLoans)} (${percent(share(d.overdueLoans, d.openLoans)!)})`}</td>
                <td className="num">{count(d.complaints)}</td>
                <td className="num">{d.medianMinutesToPayout == null ? t('dashboard.none') : duration(d.medianMinutesToPayout, t)}</td>
                <td className="num">{cash(d.outstandingPrincipal)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </>
  );
}

const BUCKET_LABEL: Record<string, string> = {
  current: 'dashboard.bucketCurrent',
  '1-7': 'dashboard.bucket1to7',
  '8-30': 'dashboard.bucket8to30',
  '31-60': 'dashboard.bucket31to60',
  '61-90': 'dashboard.bucket61to90',
  '90+': 'dashboard.bucketOver90',
};

/** The book today: the outstanding principal, the rates of the 30 days with their definitions, payout times against
 * the market's promise, and the open loans by days-past-due bucket and by product. */
function BookFigures({ board, market, t }: { board: DashboardView; market: ApiMarket; t: TFunction }) {
  const cash = (minor: number) => money(minor, board.currency);
  const { book, rates, payoutTimes } = board;
  return (
    <section aria-labelledby="book-title" className="book">
      <h2 id="book-title">{t('dashboard.bookTitle', { market: marketName(market, t), date: day(board.today) })}</h2>
      <dl className="kpis">
        <div className="kpi">
          <dt>{t('dashboard.outstandingPrincipal')}</dt>
          <dd className="kpi__value">{cash(book.outstandingPrincipal)}</dd>
          <dd className="kpi__note">{t('dashboard.openLoans', { count: book.openLoans, formatted: count(book.openLoans) })}</dd>
        </div>
        <CollectionRate rates={rates} cash={cash} t={t} />
        <ApprovalRate rates={rates} t={t} />
        <PayoutTime times={payoutTimes} market={market} t={t} />
      </dl>
      {book.openLoans === 0 ? (
        <p className="empty">{t('dashboard.emptyBook', { market: marketName(market, t) })}</p>
      ) : (
        <div className="book__tables">
          <BucketTable book={book} cash={cash} t={t} />
          <ProductTable book={book} cash={cash} t={t} />
        </div>
      )}
    </section>
  );
}

function CollectionRate({ rates, cash, t }: { rates: DashboardRates; cash: (minor: number) => string; t: TFunction }) {
  const rate = share(rates.collected, rates.collected + rates.pastDueOwed);
  return (
    <div className="kpi">
      <dt>{t('dashboard.collectionRate')}</dt>
      <dd className="kpi__value">{rate === null ? t('dashboard.none') : percent(rate)}</dd>
      <dd className="kpi__note">
        {t('dashboard.collectionRateDefinition')}{' '}
        {t('dashboard.collectionRateParts', { collected: cash(rates.collected), owed: cash(rates.pastDueOwed) })}
      </dd>
    </div>
  );
}

function ApprovalRate({ rates, t }: { rates: DashboardRates; t: TFunction }) {
  const decided = rates.approved + rates.rejected;
  const rate = share(rates.approved, decided);
  return (
    <div className="kpi">
      <dt>{t('dashboard.approvalRate')}</dt>
      <dd className="kpi__value">{rate === null ? t('dashboard.none') : percent(rate)}</dd>
      <dd className="kpi__note">{t('dashboard.approvalRateDefinition', { approved: count(rates.approved), decided: count(decided) })}</dd>
    </div>
  );
}

function PayoutTime({ times, market, t }: { times: DashboardPayoutTimes; market: ApiMarket; t: TFunction }) {
  const median = times.medianMinutes ?? null;
  const promise = times.promiseMinutes ?? null;
  const within = share(times.withinTwoHours, times.payouts);
  return (
    <div className="kpi">
      <dt>{t('dashboard.payoutTime')}</dt>
      <dd className="kpi__value">
        {median === null ? t('dashboard.none') : t('dashboard.medianValue', { value: duration(median, t) })}{' '}
        {times.promiseMet != null && (
          <span className={times.promiseMet ? 'badge badge--ok' : 'badge badge--danger'}>
            {times.promiseMet ? t('dashboard.promiseMet') : t('dashboard.promiseNotMet')}
          </span>
        )}
      </dd>
      <dd className="kpi__note">
        {times.payouts === 0
          ? t('dashboard.noPayouts')
          : t('dashboard.withinTwoHours', { within: count(times.withinTwoHours), payouts: count(times.payouts), share: percent(within!) })}{' '}
        {promise === null
          ? t('dashboard.noPromise', { market: marketName(market, t) })
          : t('dashboard.promiseRule', { value: duration(promise, t) })}
      </dd>
    </div>
  );
}

function BucketTable({ book, cash, t }: { book: DashboardBook; cash: (minor: number) => string; t: TFunction }) {
  return (
    <table className="table">
      <caption>{t('dashboard.bucketsCaption')}</caption>
      <thead>
        <tr>
          <th scope="col">{t('dashboard.daysPastDue')}</th>
          <th scope="col" className="num">{t('dashboard.loans')}</th>
          <th scope="col" className="num">{t('dashboard.outstandingPrincipal')}</th>
          <th scope="col" className="num">{t('dashboard.shareOfPrincipal')}</th>
          <th scope="col" className="num">{t('dashboard.owed')}</th>
        </tr>
      </thead>
      <tbody>
        {book.buckets.map((b) => {
          const part = share(b.outstandingPrincipal, book.outstandingPrincipal);
          return (
            <tr key={b.bucket}>
              <th scope="row">{t(BUCKET_LABEL[b.bucket] ?? b.bucket)}</th>
              <td className="num">{count(b.loans)}</td>
              <td className="num">{cash(b.outstandingPrincipal)}</td>
              <td className="num">{part === null ? t('dashboard.none') : percent(part)}</td>
              <td className="num">{cash(b.owed)}</td>
            </tr>
          );
        })}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row">{t('dashboard.allOpen')}</th>
          <td className="num">{count(book.openLoans)}</td>
          <td className="num">{cash(book.outstandingPrincipal)}</td>
          <td className="num">{percent(100)}</td>
          <td className="num">{cash(book.buckets.reduce((total, b) => total + b.owed, 0))}</td>
        </tr>
      </tfoot>
    </table>
  );
}

function ProductTable({ book, cash, t }: { book: DashboardBook; cash: (minor: number) => string; t: TFunction }) {
  return (
    <table className="table">
      <caption>{t('dashboard.productsCaption')}</caption>
      <thead>
        <tr>
          <th scope="col">{t('dashboard.product')}</th>
          <th scope="col" className="num">{t('dashboard.loans')}</th>
          <th scope="col" className="num">{t('dashboard.outstandingPrincipal')}</th>
          <th scope="col" className="num">{t('dashboard.pastDueLoans')}</th>
          <th scope="col" className="num">{t('dashboard.shareOverdue')}</th>
        </tr>
      </thead>
      <tbody>
        {book.products.map((p) => {
          const part = share(p.overduePrincipal, p.outstandingPrincipal);
          return (
            <tr key={p.productCode}>
              <th scope="row">{p.productName}</th>
              <td className="num">{count(p.loans)}</td>
              <td className="num">{cash(p.outstandingPrincipal)}</td>
              <td className="num">{count(p.overdueLoans)}</td>
              <td className="num">{part === null ? t('dashboard.none') : percent(part)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
