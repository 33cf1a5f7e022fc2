import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { useDashboard } from '../api/dashboard';
import type { ApiMarket, Currency, DashboardDay } from '../api/types';
import { day, marketName, money } from '../format';
import { marketIn, useOperatorMarkets } from '../operator-context';
import { consolePaths } from '../paths';
import { DayChart } from './day-chart';
import { MonthEndExport } from './payouts';
import { LoadFailed, Loading } from './states';

/** The site's promise in India: money "within 2 hours" of applying. */
const PROMISED_MINUTES: Partial<Record<ApiMarket, number>> = { IN: 120 };

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

/** The last 30 days of a market, as charts and a table (admins). */
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
        <Figures days={board.data.days} currency={board.data.currency} market={market} t={t} />
      )}
      {/* Admins export too (finance has the same form on Payouts). */}
      <MonthEndExport market={market} />
    </section>
  );
}

function Figures({ days, currency, market, t }: { days: DashboardDay[]; currency: Currency; market: ApiMarket; t: TFunction }) {
  const cash = (minor: number) => money(minor, currency);
  const shares = days.map((d) => share(d.overdueLoans, d.openLoans));
  const medians = days.map((d) => d.medianMinutesToPayout ?? null);
  const lastMedian = [...medians].reverse().find((m) => m !== null);
  const promised = PROMISED_MINUTES[market];
  const label = (title: string, max: string) => t('dashboard.chartLabel', { title, max });
  const maxOf = (values: readonly (number | null)[]) => Math.max(0, ...values.filter((v): v is number => v !== null));
  const charts = [
    { title: t('dashboard.applications'), values: days.map((d) => d.applications), format: count, summary: t('dashboard.total', { value: count(sum(days, (d) => d.applications)) }) },
    { title: t('dashboard.approvals'), values: days.map((d) => d.approvals), format: count, summary: t('dashboard.total', { value: count(sum(days, (d) => d.approvals)) }) },
    { title: t('dashboard.paidOut'), values: days.map((d) => d.paidOut), format: cash, summary: t('dashboard.total', { value: cash(sum(days, (d) => d.paidOut)) }) },
    { title: t('dashboard.repaid'), values: days.map((d) => d.repaid), format: cash, summary: t('dashboard.total', { value: cash(sum(days, (d) => d.repaid)) }) },
    { title: t('dashboard.complaints'), values: days.map((d) => d.complaints), format: count, summary: t('dashboard.total', { value: count(sum(days, (d) => d.complaints)) }) },
  ];
  return (
    <>
      <p className="muted">{t('dashboard.intro', { market: marketName(market, t) })}</p>
      <div className="charts">
        {charts.map((c) => (
          <DayChart key={c.title} kind="bar" {...c} label={label(c.title, c.format(maxOf(c.values)))} />
        ))}
        <DayChart
          kind="line"
          title={t('dashboard.overdueShare')}
          values={shares}
          format={percent}
          summary={t('dashboard.latest', { value: shares[shares.length - 1] === null ? t('dashboard.none') : percent(shares[shares.length - 1]!) })}
          label={label(t('dashboard.overdueShare'), percent(maxOf(shares)))}
        />
        <DayChart
          kind="line"
          title={t('dashboard.medianToPayout')}
          values={medians}
          format={(m) => duration(m, t)}
          summary={lastMedian == null ? t('dashboard.noPayouts') : t('dashboard.latest', { value: duration(lastMedian, t) })}
          reference={promised ? { value: promised, label: t('dashboard.promise', { value: duration(promised, t) }) } : undefined}
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
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </>
  );
}
