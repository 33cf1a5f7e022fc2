import { fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { deferred, fakeConsoleApi, ok, OPERATORS, refusal, renderConsole } from '@/test/render-console';
import type { DashboardDay, DashboardView } from './api/types';
import { money } from './format';

const BOARD = 'GET /api/v1/console/dashboard';

function days(): DashboardDay[] {
  const list: DashboardDay[] = [];
  for (let i = 0; i < 30; i += 1) {
    const date = new Date(Date.UTC(2026, 9, 27 + i)).toISOString().slice(0, 10);
    list.push({ date, applications: 0, approvals: 0, paidOut: 0, repaid: 0, openLoans: 0, overdueLoans: 0, complaints: 0, medianMinutesToPayout: null, outstandingPrincipal: 0 });
  }
  list[27] = { ...list[27]!, applications: 3, approvals: 2, paidOut: 1_940_000, openLoans: 1, medianMinutesToPayout: 90, outstandingPrincipal: 2_000_000 };
  list[28] = { ...list[28]!, applications: 1, approvals: 1, paidOut: 3_880_000, repaid: 150_000, openLoans: 3, medianMinutesToPayout: 150, outstandingPrincipal: 6_000_000 };
  list[29] = { ...list[29]!, applications: 2, openLoans: 3, overdueLoans: 1, complaints: 4, outstandingPrincipal: 5_900_000 };
  return list;
}

const EMPTY_BUCKETS = ['current', '1-7', '8-30', '31-60', '61-90', '90+'].map((bucket) => ({ bucket, loans: 0, outstandingPrincipal: 0, owed: 0 }));

function board(): DashboardView {
  return {
    market: 'IN',
    currency: 'INR',
    today: '2026-11-25',
    days: days(),
    book: {
      openLoans: 3,
      outstandingPrincipal: 5_900_000,
      buckets: [
        { bucket: 'current', loans: 2, outstandingPrincipal: 4_000_000, owed: 4_400_000 },
        { bucket: '1-7', loans: 0, outstandingPrincipal: 0, owed: 0 },
        { bucket: '8-30', loans: 1, outstandingPrincipal: 1_900_000, owed: 2_100_000 },
        { bucket: '31-60', loans: 0, outstandingPrincipal: 0, owed: 0 },
        { bucket: '61-90', loans: 0, outstandingPrincipal: 0, owed: 0 },
        { bucket: '90+', loans: 0, outstandingPrincipal: 0, owed: 0 },
      ],
      products: [
        { productCode: 'in-flexi-6m', productName: 'Flexi 6 months', loans: 1, outstandingPrincipal: 2_000_000, overdueLoans: 0, overduePrincipal: 0 },
        { productCode: 'in-salary-advance', productName: 'Salary advance', loans: 2, outstandingPrincipal: 3_900_000, overdueLoans: 1, overduePrincipal: 1_900_000 },
      ],
    },
    rates: { collected: 150_000, pastDueOwed: 2_100_000, approved: 3, rejected: 1 },
    payoutTimes: { payouts: 3, withinTwoHours: 1, medianMinutes: 125, promiseMinutes: 120, promiseMet: false },
  } as DashboardView;
}

function emptyBoard(): DashboardView {
  const empty = days().map((d) => ({ ...d, applications: 0, approvals: 0, paidOut: 0, repaid: 0, openLoans: 0, overdueLoans: 0, complaints: 0, medianMinutesToPayout: null, outstandingPrincipal: 0 }));
  return {
    market: 'ID',
    currency: 'IDR',
    today: '2026-11-25',
    days: empty,
    book: { openLoans: 0, outstandingPrincipal: 0, buckets: EMPTY_BUCKETS, products: [] },
    rates: { collected: 0, pastDueOwed: 0, approved: 0, rejected: 0 },
    payoutTimes: { payouts: 0, withinTwoHours: 0, medianMinutes: null, promiseMinutes: null, promiseMet: null },
  } as DashboardView;
}

describe('dashboard', () => {
  it('charts the last 30 days of a market and lists them day by day, newest first', async () => {
    const api = fakeConsoleApi({ operator: OPERATORS.admin, signedIn: true, handlers: { [BOARD]: () => ok(board()) } });
    renderConsole('/console/dashboard');
    expect(await screen.findByRole('heading', { level: 1, name: 'Dashboard' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Dashboard' })).toHaveAttribute('aria-current', 'page');
    expect(api.callsTo('GET', '/api/v1/console/dashboard')[0]!.query.get('market')).toBe('IN');

    const applications = await screen.findByRole('img', { name: 'Applications, daily for the last 30 days. Highest 3.' });
    expect(applications.querySelectorAll('rect')).toHaveLength(3);
    expect(screen.getByText('6 in 30 days')).toBeInTheDocument();
    expect(screen.getByText('₹58,200 in 30 days')).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'Overdue share of open loans, daily for the last 30 days. Highest 33.3%.' })).toBeInTheDocument();
    expect(screen.getByText('Today: 33.3%')).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'Complaints received, daily for the last 30 days. Highest 4.' })).toBeInTheDocument();
    expect(screen.getByText('4 in 30 days')).toBeInTheDocument();
    // India's promise of money within 2 hours, drawn across the median chart.
    const median = screen.getByRole('img', { name: 'Median time from application to payout, daily for the last 30 days. Highest 2 h 30 min.' });
    expect(within(median as unknown as HTMLElement).getByText('Promise: 2 h 0 min')).toBeInTheDocument();
    expect(screen.getByText('Today: 2 h 30 min')).toBeInTheDocument();

    const user = userEvent.setup();
    await user.click(screen.getByText('The figures, day by day'));
    const daily = screen.getByText('The figures, day by day').closest('details')!;
    const rows = within(within(daily).getByRole('table')).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(30);
    expect([within(rows[0]!).getByRole('rowheader'), ...within(rows[0]!).getAllByRole('cell')].map((c) => c.textContent)).toEqual([
      '25 Nov 2026', '2', '0', '₹0', '₹0', '3', '1 (33.3%)', '4', '—', '₹59,000',
    ]);
    expect(within(rows[1]!).getAllByRole('cell').map((c) => c.textContent)).toEqual(['1', '1', '₹38,800', '₹1,500', '3', '0 (0.0%)', '0', '2 h 30 min', '₹60,000']);
  });

  it('shows the book today: outstanding principal, the rates with their definitions, payout time against the promise, buckets and products', async () => {
    fakeConsoleApi({ operator: OPERATORS.admin, signedIn: true, handlers: { [BOARD]: () => ok(board()) } });
    renderConsole('/console/dashboard');
    expect(await screen.findByRole('heading', { level: 2, name: 'The book in India on 25 Nov 2026' })).toBeInTheDocument();
    const figure = (name: string) => {
      const term = screen.getByText(name, { selector: 'dt' });
      return Array.from(term.parentElement!.querySelectorAll('dd')).map((d) => d.textContent);
    };
    expect(figure('Outstanding principal')).toEqual(['₹59,000', '3 open loans (paid out, not ended)']);
    // 1,500 ÷ (1,500 + 21,000) = 6.7%, its definition on screen.
    expect(figure('Collection rate, 30 days')).toEqual([
      '6.7%',
      'Paid by borrowers in the last 30 days ÷ (paid in the 30 days + still owed today on loans past due). ₹1,500 ÷ (₹1,500 + ₹21,000).',
    ]);
    expect(figure('Approval rate, 30 days')).toEqual(['75.0%', 'Approved ÷ decided (approved or rejected) in the last 30 days: 3 of 4.']);
    expect(figure('Application to payout, 30 days')).toEqual([
      '2 h 5 min median Promise not met',
      '1 of 3 loans paid out within 2 hours of applying (33.3%). Promise: money within 2 h 0 min; met when the median is within it.',
    ]);

    const buckets = screen.getByRole('table', { name: 'Open loans by days past due' });
    const rows = within(buckets).getAllByRole('row').slice(1).map((r) => [within(r).getByRole('rowheader'), ...within(r).getAllByRole('cell')].map((c) => c.textContent));
    expect(rows).toEqual([
      ['Current (not past due)', '2', '₹40,000', '67.8%', '₹44,000'],
      ['1–7 days', '0', '₹0', '0.0%', '₹0'],
      ['8–30 days', '1', '₹19,000', '32.2%', '₹21,000'],
      ['31–60 days', '0', '₹0', '0.0%', '₹0'],
      ['61–90 days', '0', '₹0', '0.0%', '₹0'],
      ['Over 90 days', '0', '₹0', '0.0%', '₹0'],
      ['All open loans', '3', '₹59,000', '100.0%', '₹65,000'],
    ]);
    const products = screen.getByRole('table', { name: 'The book by product' });
    expect(within(products).getAllByRole('row').slice(1).map((r) => [within(r).getByRole('rowheader'), ...within(r).getAllByRole('cell')].map((c) => c.textContent))).toEqual([
      ['Flexi 6 months', '1', '₹20,000', '0', '0.0%'],
      ['Salary advance', '2', '₹39,000', '1', '48.7%'],
    ]);
    expect(screen.getByRole('img', { name: 'Outstanding principal, daily for the last 30 days. Highest ₹60,000.' })).toBeInTheDocument();
  });

  it('reads a chart day by day with the keyboard and under the pointer, with dated axes', async () => {
    fakeConsoleApi({ operator: OPERATORS.admin, signedIn: true, handlers: { [BOARD]: () => ok(board()) } });
    renderConsole('/console/dashboard');
    const chart = await screen.findByRole('group', { name: 'Outstanding principal' });
    const figure = chart.closest('figure')!;
    // The axis: the first, middle and last day.
    expect(Array.from(figure.querySelectorAll('.chart__dates span')).map((s) => s.textContent)).toEqual(['27 Oct', '10 Nov', '25 Nov']);
    const readout = within(figure).getByText('Point at a day, or focus the chart and use the arrow keys, to read its value.');
    expect(readout).toHaveAttribute('aria-live', 'polite');
    const user = userEvent.setup();
    while (document.activeElement !== chart) await user.tab();
    expect(readout).toHaveTextContent('25 Nov: ₹59,000');
    await user.keyboard('{ArrowLeft}');
    expect(readout).toHaveTextContent('24 Nov: ₹60,000');
    await user.keyboard('{Home}');
    expect(readout).toHaveTextContent('27 Oct: ₹0');
    await user.keyboard('{End}{ArrowRight}');
    expect(readout).toHaveTextContent('25 Nov: ₹59,000');
    // The median chart names a day without payouts.
    const median = screen.getByRole('group', { name: 'Median time from application to payout' });
    while (document.activeElement !== median) await user.tab();
    expect(within(median.closest('figure')!).getByText('25 Nov: —')).toBeInTheDocument();
    // Hover: the day under the pointer.
    chart.getBoundingClientRect = () => ({ left: 0, width: 300, top: 0, height: 100, right: 300, bottom: 100, x: 0, y: 0, toJSON: () => ({}) });
    fireEvent.mouseMove(chart, { clientX: 275 });
    expect(readout).toHaveTextContent('23 Nov: ₹20,000');
    fireEvent.mouseLeave(chart);
    fireEvent.blur(chart);
    expect(readout).toHaveTextContent('Point at a day');
  });

  it('says so while loading, and when the market has no open loan and no payout', async () => {
    const answer = deferred();
    fakeConsoleApi({ operator: OPERATORS.admin, signedIn: true, handlers: { [BOARD]: () => answer.promise } });
    renderConsole('/console/dashboard?market=ID');
    expect(await screen.findByText('Loading the dashboard…')).toBeInTheDocument();
    answer.resolve(ok(emptyBoard()));
    expect(await screen.findByText('No loan is open in Indonesia today: nothing is outstanding.')).toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Open loans by days past due' })).toBeNull();
    const figure = (name: string) => Array.from(screen.getByText(name, { selector: 'dt' }).parentElement!.querySelectorAll('dd')).map((d) => d.textContent);
    expect(figure('Outstanding principal')).toEqual([money(0, 'IDR'), '0 open loans (paid out, not ended)']);
    expect(figure('Collection rate, 30 days')[0]).toBe('—');
    expect(figure('Approval rate, 30 days')[0]).toBe('—');
    expect(figure('Application to payout, 30 days')).toEqual(['— ', 'No payouts in 30 days No payout time is promised in Indonesia.']);
    expect(screen.queryByText('Promise met')).toBeNull();
    expect(screen.queryByText('Promise not met')).toBeNull();
  });

  it('switches market, and says so when the figures cannot be read', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.admin,
      signedIn: true,
      handlers: {
        [BOARD]: (call) =>
          call.query.get('market') === 'ID' ? refusal(500, 'internal', 'Something went wrong on our side. Please try again.') : ok(board()),
      },
    });
    renderConsole('/console/dashboard');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('link', { name: 'Indonesia' }));
    expect(await screen.findByText('Something went wrong on our side. Please try again.')).toBeInTheDocument();
    expect(api.callsTo('GET', '/api/v1/console/dashboard').map((c) => c.query.get('market'))).toEqual(['IN', 'ID']);
  });

  it('is for admins and finance: finance opens it, others neither see it in the navigation nor open it', async () => {
    fakeConsoleApi({ operator: OPERATORS.finance, signedIn: true, handlers: { [BOARD]: () => ok(board()) } });
    const view = renderConsole('/console/dashboard');
    expect(await screen.findByRole('heading', { level: 2, name: 'The book in India on 25 Nov 2026' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Dashboard' })).toBeInTheDocument();
    view.unmount();
    fakeConsoleApi({ operator: OPERATORS.reviewer, signedIn: true });
    renderConsole('/console/dashboard');
    expect(await screen.findByRole('heading', { name: 'Not available to your role' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Dashboard' })).toBeNull();
  });
});
