import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { CSRF, OPERATORS, fakeConsoleApi, ok, renderConsole } from '@/test/render-console';
import { CSRF_STORAGE_KEY } from './csrf';

const EMPTY = {
  'GET /api/v1/console/applications': () => ok([]),
  'GET /api/v1/console/audit': () => ok({ entries: [], next: null }),
  'GET /api/v1/console/payouts': () => ok([]),
  'GET /api/v1/console/payments': () => ok([]),
};

async function navLinks() {
  const nav = await screen.findByRole('navigation', { name: 'Console sections' });
  return within(nav).queryAllByRole('link').map((link) => link.textContent);
}

describe('console layout', () => {
  it.each([
    ['support', OPERATORS.support, ['Review queue', 'Complaints', 'Contact messages', 'Audit trail']],
    ['reviewer', OPERATORS.reviewer, ['Review queue']],
    ['admin only', OPERATORS.adminOnly, ['Collections', 'Complaints', 'Contact messages', 'Reconciliation', 'Dashboard', 'Audit trail', 'Products', 'Operators', 'FAQ', 'Site']],
    ['finance', OPERATORS.finance, ['Payouts', 'Repayments', 'Reconciliation', 'Dashboard']],
    ['admin with every role', OPERATORS.admin, ['Review queue', 'Collections', 'Complaints', 'Contact messages', 'Payouts', 'Repayments', 'Reconciliation', 'Dashboard', 'Audit trail', 'Products', 'Operators', 'FAQ', 'Site']],
    ['collections', OPERATORS.collections, ['Collections']],
  ] as const)('%s: the navigation shows only the sections the roles open', async (_name, operator, expected) => {
    fakeConsoleApi({ operator, signedIn: true, handlers: EMPTY });
    renderConsole('/console/');
    expect(await navLinks()).toEqual(expected);
    expect(screen.getByText(operator.username)).toBeInTheDocument();
  });

  it('groups the sections (work, money, oversight, settings), each group a named list, with a skip link first', async () => {
    fakeConsoleApi({ operator: OPERATORS.admin, signedIn: true, handlers: EMPTY });
    renderConsole('/console/');
    const nav = await screen.findByRole('navigation', { name: 'Console sections' });
    const groups = within(nav).getAllByRole('list');
    expect(groups.map((list) => list.getAttribute('aria-labelledby')).map((id) => document.getElementById(id!)?.textContent)).toEqual([
      'Work',
      'Money',
      'Oversight',
      'Settings',
    ]);
    expect(within(groups[1]!).getAllByRole('link').map((link) => link.textContent)).toEqual(['Payouts', 'Repayments', 'Reconciliation']);
    const skip = screen.getByRole('link', { name: 'Skip to the page' });
    expect(skip.getAttribute('href')).toBe('#console-main');
    expect(document.getElementById('console-main')?.tagName).toBe('MAIN');
    // The operator's markets are named beside the roles.
    expect(screen.getByText(/admin, reviewer, finance, support · India, Indonesia/)).toBeInTheDocument();
  });

  it('refuses a section the roles do not open, without asking the server', async () => {
    const api = fakeConsoleApi({ operator: OPERATORS.reviewer, signedIn: true, handlers: EMPTY });
    renderConsole('/console/audit');
    expect(await screen.findByRole('heading', { level: 1, name: 'Not available to your role' })).toBeInTheDocument();
    expect(api.callsTo('GET', '/api/v1/console/audit')).toHaveLength(0);
  });

  it('takes finance to the payouts, and lets them open an order by its number', async () => {
    fakeConsoleApi({ operator: OPERATORS.finance, signedIn: true, handlers: EMPTY });
    renderConsole('/console/');
    expect(await screen.findByRole('heading', { level: 1, name: 'Payouts' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/console/payouts');
    const user = userEvent.setup();
    await user.type(screen.getByRole('searchbox', { name: 'Open an order by its number' }), 'kl-261123-bbbbbb');
    await user.click(screen.getByRole('button', { name: 'Open' }));
    expect(window.location.pathname).toBe('/console/orders/KL-261123-BBBBBB');
  });

  it('signs out with the CSRF token and returns to the sign-in', async () => {
    const api = fakeConsoleApi({ operator: OPERATORS.support, signedIn: true, handlers: EMPTY });
    renderConsole('/console/applications');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in' })).toBeInTheDocument();
    const [logout] = api.callsTo('POST', '/api/v1/console/logout');
    expect(logout!.headers['X-CSRF-Token']).toBe(CSRF);
    expect(window.localStorage.getItem(CSRF_STORAGE_KEY)).toBeNull();
  });
});
