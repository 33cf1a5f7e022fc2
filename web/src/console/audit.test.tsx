import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { OPERATORS, fakeConsoleApi, ok, refusal, renderConsole } from '@/test/render-console';
import { AUDIT_ENTRIES } from './fixtures.test-data';

/** A page of the search as the server answers it. */
function page(entries: unknown[], next: string | null = null) {
  return { entries, next };
}

function csv(text: string, name: string): Response {
  return new Response(text, { status: 200, headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="${name}"` } });
}

describe('audit trail', () => {
  it('lists the newest entries first: the username, the action in words, the order number and what changed', async () => {
    const mine = { ...AUDIT_ENTRIES[1]!, id: 'a-0', actorId: OPERATORS.support.id, actorName: 'sam', at: AUDIT_ENTRIES[1]!.at - 60_000 };
    fakeConsoleApi({ operator: OPERATORS.support, signedIn: true, handlers: { 'GET /api/v1/console/audit': () => ok(page([...AUDIT_ENTRIES, mine])) } });
    renderConsole('/console/audit');
    const table = await screen.findByRole('table', { name: '3 entries, newest first' });
    expect(screen.queryByRole('button', { name: 'Show older entries' })).not.toBeInTheDocument();
    const rows = within(table)
      .getAllByRole('row')
      .filter((row) => row.parentElement?.parentElement === table && row.parentElement.tagName === 'TBODY');
    const [first, second, last] = rows;
    const cells = within(first!).getAllByRole('cell');
    expect(cells[1]).toHaveTextContent(/^rita$/);
    expect(cells[2]).toHaveTextContent('Approvedorder.approve');
    expect(within(cells[3]!).getByRole('link', { name: 'KL-261123-BBBBBB' })).toHaveAttribute('href', '/console/orders/KL-261123-BBBBBB');
    // Field by field, money in the order's currency: no JSON.
    const changes = within(cells[4]!).getAllByRole('row').slice(1).map((r) => r.textContent);
    expect(changes).toEqual(['statuspending_review→approved', 'amount₹20,000→₹25,000']);
    expect(first).not.toHaveTextContent('{');
    expect(second).toHaveTextContent('Viewed personal data in full');
    expect(second).toHaveTextContent('Nothing recorded');
    expect(within(last!).getAllByRole('cell')[1]).toHaveTextContent('sam (you)');
  });

  it('filters by action and exports the same search to CSV', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.adminOnly,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/audit': () => ok(page(AUDIT_ENTRIES)),
        'GET /api/v1/console/audit/export': () => csv('time_utc,actor,action,record,changes,before,after\r\n', 'kilat-audit.csv'),
      },
    });
    renderConsole('/console/audit');
    await screen.findByRole('table', { name: /newest first/ });
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Action'), 'payment.');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    await vi.waitFor(() => expect(api.callsTo('GET', '/api/v1/console/audit').at(-1)!.query.get('action')).toBe('payment.'));
    await user.click(screen.getByRole('button', { name: 'Export CSV' }));
    expect(await screen.findByRole('status')).toHaveTextContent('kilat-audit.csv saved');
    expect(Object.fromEntries(api.callsTo('GET', '/api/v1/console/audit/export').at(-1)!.query)).toEqual({ action: 'payment.' });
  });

  it('reads older entries a page at a time, from where the last page ended', async () => {
    const older = { ...AUDIT_ENTRIES[0]!, id: 'a-old', at: AUDIT_ENTRIES[0]!.at - 86_400_000, orderNo: 'KL-261101-OLDOLD' };
    const api = fakeConsoleApi({
      operator: OPERATORS.adminOnly,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/audit': (call) => (call.query.get('before') === 'cursor-1' ? ok(page([older])) : ok(page(AUDIT_ENTRIES, 'cursor-1'))),
      },
    });
    renderConsole('/console/audit?action=order.');
    expect(await screen.findByRole('table', { name: 'The newest 2 entries; older ones follow' })).toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Show older entries' }));
    expect(await screen.findByRole('table', { name: '3 entries, newest first' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'KL-261101-OLDOLD' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Show older entries' })).not.toBeInTheDocument();
    const second = api.callsTo('GET', '/api/v1/console/audit').at(-1)!.query;
    expect(Object.fromEntries(second)).toEqual({ action: 'order.', before: 'cursor-1' });
  });

  it('says by the dates when a search has too many entries for one export', async () => {
    fakeConsoleApi({
      operator: OPERATORS.support,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/audit': () => ok(page(AUDIT_ENTRIES, 'cursor-1')),
        'GET /api/v1/console/audit/export': () =>
          refusal(422, 'validation_failed', 'Some fields need your attention.', {
            fields: { from: 'This search has more than 10,000 entries, too many for one export: narrow the dates.' },
          }),
      },
    });
    renderConsole('/console/audit');
    await screen.findByRole('table', { name: /older ones follow/ });
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Export CSV' }));
    expect(await screen.findByText(/too many for one export: narrow the dates/)).toBeInTheDocument();
    expect(screen.getByLabelText('From (day)')).toHaveAttribute('aria-invalid', 'true');
  });

  it('searches by order, operator and whole days, both days included', async () => {
    const api = fakeConsoleApi({ operator: OPERATORS.adminOnly, signedIn: true, handlers: { 'GET /api/v1/console/audit': () => ok(page([])) } });
    renderConsole('/console/audit');
    expect(await screen.findByText('No audit entries match.')).toBeInTheDocument();
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Order number'), 'KL-261123-BBBBBB');
    await user.type(screen.getByLabelText('Operator (username or id)'), 'rita');
    await user.type(screen.getByLabelText('From (day)'), '2026-11-22');
    await user.type(screen.getByLabelText('To (day, included)'), '2026-11-23');
    await user.click(screen.getByRole('button', { name: 'Search' }));

    await vi.waitFor(() => expect(api.callsTo('GET', '/api/v1/console/audit')).toHaveLength(2));
    const search = api.callsTo('GET', '/api/v1/console/audit')[1]!.query;
    expect(search.get('orderNo')).toBe('KL-261123-BBBBBB');
    expect(search.get('operator')).toBe('rita');
    expect(Number(search.get('from'))).toBe(new Date(2026, 10, 22).getTime());
    expect(Number(search.get('to'))).toBe(new Date(2026, 10, 24).getTime());
    expect(window.location.search).toContain('operator=rita');
  });

  it('refuses a range that ends before it starts, and shows the server’s field errors', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.support,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/audit': (call) =>
          call.query.has('orderNo') ? refusal(422, 'validation_failed', 'Some fields need your attention.', { fields: { orderNo: 'Not an order number.' } }) : ok(page([])),
      },
    });
    renderConsole('/console/audit');
    const user = userEvent.setup();
    await user.type(await screen.findByLabelText('From (day)'), '2026-11-23');
    await user.type(screen.getByLabelText('To (day, included)'), '2026-11-22');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    expect(screen.getByRole('alert')).toHaveTextContent('The first day comes after the last.');
    expect(api.callsTo('GET', '/api/v1/console/audit')).toHaveLength(1);

    await user.clear(screen.getByLabelText('From (day)'));
    await user.type(screen.getByLabelText('Order number'), 'x');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    expect(await screen.findByText('Not an order number.')).toBeInTheDocument();
  });
});
