import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeConsoleApi, ok, OPERATORS, refusal, renderConsole } from '@/test/render-console';
import type { DashboardDay } from './api/types';

const BOARD = 'GET /api/v1/console/dashboard';

function days(): DashboardDay[] {
  const list: DashboardDay[] = [];
  for (let i = 0; i < 30; i += 1) {
    const date = new Date(Date.UTC(2026, 9, 27 + i)).toISOString().slice(0, 10);
    list.push({ date, applications: 0, approvals: 0, paidOut: 0, repaid: 0, openLoans: 0, overdueLoans: 0, complaints: 0, medianMinutesToPayout: null });
  }
  list[27] = { ...list[27]!, applications: 3, approvals: 2, paidOut: 1_940_000, openLoans: 1, medianMinutesToPayout: 90 };
  list[28] = { ...list[28]!, applications: 1, approvals: 1, paidOut: 3_880_000, repaid: 150_000, openLoans: 3, medianMinutesToPayout: 150 };
  list[29] = { ...list[29]!, applications: 2, openLoans: 3, overdueLoans: 1, complaints: 4 };
  return list;
}

describe('dashboard', () => {
  it('charts the last 30 days of a market and lists them day by day, newest first', async () => {
    const api = fakeConsoleApi({ operator: OPERATORS.admin, signedIn: true, handlers: { [BOARD]: () => ok({ market: 'IN', currency: 'INR', days: days() }) } });
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
    const rows = within(screen.getByRole('table')).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(30);
    expect([within(rows[0]!).getByRole('rowheader'), ...within(rows[0]!).getAllByRole('cell')].map((c) => c.textContent)).toEqual([
      '25 Nov 2026', '2', '0', '₹0', '₹0', '3', '1 (33.3%)', '4', '—',
    ]);
    expect(within(rows[1]!).getAllByRole('cell').map((c) => c.textContent)).toEqual(['1', '1', '₹38,800', '₹1,500', '3', '0 (0.0%)', '0', '2 h 30 min']);
  });

  it('switches market, and says so when the figures cannot be read', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.admin,
      signedIn: true,
      handlers: {
        [BOARD]: (call) =>
          call.query.get('market') === 'ID' ? refusal(500, 'internal', 'Something went wrong on our side. Please try again.') : ok({ market: 'IN', currency: 'INR', days: days() }),
      },
    });
    renderConsole('/console/dashboard');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('link', { name: 'Indonesia' }));
    expect(await screen.findByText('Something went wrong on our side. Please try again.')).toBeInTheDocument();
    expect(api.callsTo('GET', '/api/v1/console/dashboard').map((c) => c.query.get('market'))).toEqual(['IN', 'ID']);
  });

  it('is for admins only: others neither see it in the navigation nor open it', async () => {
    fakeConsoleApi({ operator: OPERATORS.finance, signedIn: true });
    renderConsole('/console/dashboard');
    expect(await screen.findByRole('heading', { name: 'Not available to your role' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Dashboard' })).toBeNull();
  });
});
