import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { OPERATORS, fakeConsoleApi, ok, renderConsole } from '@/test/render-console';

describe('a page that throws while rendering', () => {
  it('says the page could not be shown and offers a reload, the navigation still there, and another page opens', async () => {
    // React reports the error the boundary caught; it is the point of this test.
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    // An answer the page does not expect (as from a server of another version): the dashboard throws reading it.
    fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: { 'GET /api/v1/console/dashboard': () => ok({}), 'GET /api/v1/console/payouts': () => ok([]) },
    });
    renderConsole('/console/dashboard');
    const notice = await screen.findByRole('alert');
    expect(within(notice).getByRole('heading', { level: 1, name: 'This page could not be shown' })).toBeInTheDocument();
    expect(notice).toHaveTextContent('Something went wrong while showing it. Reload to try again; the other sections still open from the menu.');
    expect(within(notice).getByRole('button', { name: 'Reload' })).toBeInTheDocument();

    const nav = screen.getByRole('navigation', { name: 'Console sections' });
    await userEvent.click(within(nav).getByRole('link', { name: 'Payouts' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Payouts' })).toBeInTheDocument();
    expect(screen.queryByText('This page could not be shown')).not.toBeInTheDocument();
  });
});
