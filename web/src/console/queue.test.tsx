import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeConsoleApi, deferred, ok, refusal, renderConsole } from '@/test/render-console';
import { QUEUE_ID, QUEUE_IN } from './fixtures.test-data';

describe('review queue', () => {
  it('shows a loading state, then each application oldest first with its age, product, amount, term and APR', async () => {
    const answer = deferred();
    fakeConsoleApi({ signedIn: true, handlers: { 'GET /api/v1/console/applications': () => answer.promise } });
    renderConsole('/console/applications');
    expect(await screen.findByText('Loading applications…')).toHaveAttribute('role', 'status');
    answer.resolve(ok(QUEUE_IN));

    const table = await screen.findByRole('table', { name: '2 applications waiting in India, oldest first' });
    const rows = within(table).getAllByRole('row').slice(1);
    const cells = rows.map((row) => within(row).getAllByRole('cell').map((cell) => cell.textContent));
    expect(cells[0]).toEqual(['KL-261122-AAAAAA', '1 d 2 h Over 2 hours', 'Flexi EMI', '₹20,000', '6 months', '32.12%', '+91 ******3210', expect.stringMatching(/2026/), '—']);
    expect(cells[1]!.slice(0, 6)).toEqual(['KL-261123-BBBBBB', '4 min', 'Flexi 6 Weeks', '₹6,000', '3 installments, every 14 days', '83.87%']);
    expect(within(rows[0]!).getByRole('link', { name: 'KL-261122-AAAAAA' })).toHaveAttribute('href', '/console/orders/KL-261122-AAAAAA');
  });

  it('marks, in words and with a highlight, an application waiting past the 2 hours the site promises', async () => {
    const [first, second] = QUEUE_IN;
    const entries = [
      { ...first!, orderNo: 'KL-261122-LATE01', ageSeconds: 7201 },
      { ...second!, orderNo: 'KL-261123-SOON01', ageSeconds: 600 },
    ];
    fakeConsoleApi({ signedIn: true, handlers: { 'GET /api/v1/console/applications': () => ok(entries) } });
    renderConsole('/console/applications');
    const table = await screen.findByRole('table', { name: /waiting in India/ });
    const [late, soon] = within(table).getAllByRole('row').slice(1) as [HTMLElement, HTMLElement];
    const waiting = (row: HTMLElement) => within(row).getAllByRole('cell')[1]!;
    expect(within(late).getByRole('link', { name: 'KL-261122-LATE01' })).toBeInTheDocument();
    expect(waiting(late)).toHaveTextContent('2 h 0 min Over 2 hours');
    expect(within(waiting(late)).getByText('Over 2 hours')).toHaveClass('badge');
    expect(late).toHaveClass('row--flagged');
    expect(within(soon).getByRole('link', { name: 'KL-261123-SOON01' })).toBeInTheDocument();
    expect(waiting(soon)).toHaveTextContent(/^10 min$/);
    expect(within(table).getAllByText('Over 2 hours')).toHaveLength(1);
    expect(soon).not.toHaveClass('row--flagged');
  });

  it('flags nothing in Indonesia, whose site promises no time', async () => {
    const [first] = QUEUE_ID;
    fakeConsoleApi({ signedIn: true, handlers: { 'GET /api/v1/console/applications': () => ok([{ ...first!, ageSeconds: 9 * 3600 }]) } });
    renderConsole('/console/applications?market=ID');
    const table = await screen.findByRole('table', { name: /waiting in Indonesia/ });
    expect(within(table).queryByText(/Over 2 hours/)).toBeNull();
  });

  it('switches market and shows rupiah amounts in Indonesia', async () => {
    const api = fakeConsoleApi({
      signedIn: true,
      handlers: { 'GET /api/v1/console/applications': (call) => ok(call.query.get('market') === 'ID' ? QUEUE_ID : QUEUE_IN) },
    });
    renderConsole('/console/applications');
    await screen.findByRole('table', { name: /waiting in India/ });
    const user = userEvent.setup();
    await user.click(screen.getByRole('link', { name: 'Indonesia' }));
    const table = await screen.findByRole('table', { name: '1 application waiting in Indonesia, oldest first' });
    expect(within(table).getByText(/^Rp\s1\.000\.000$/)).toBeInTheDocument();
    expect(within(table).getByText('under a minute')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Indonesia' })).toHaveAttribute('aria-current', 'page');
    expect(api.callsTo('GET', '/api/v1/console/applications').map((c) => c.query.get('market'))).toEqual(['IN', 'ID']);
  });

  it('says so when nothing is waiting', async () => {
    fakeConsoleApi({ signedIn: true, handlers: { 'GET /api/v1/console/applications': () => ok([]) } });
    renderConsole('/console/applications?market=ID');
    expect(await screen.findByText('No applications are waiting for review in Indonesia.')).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('shows a failed read with the server’s words and a way to try again', async () => {
    let fail = true;
    fakeConsoleApi({
      signedIn: true,
      handlers: {
        'GET /api/v1/console/applications': () => (fail ? refusal(500, 'internal', 'Something went wrong on our side.') : ok(QUEUE_IN)),
      },
    });
    renderConsole('/console/applications');
    expect(await screen.findByRole('alert')).toHaveTextContent('Something went wrong on our side.');
    fail = false;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('table')).toBeInTheDocument();
  });

  it('counts what waits in each market on its tab, says who holds each application, and pages through the queue', async () => {
    const api = fakeConsoleApi({
      signedIn: true,
      handlers: {
        'GET /api/v1/console/applications': (call) => ok(call.query.get('page') === '2' ? [QUEUE_IN[0]] : QUEUE_IN),
        'GET /api/v1/console/applications/counts': () =>
          ok([
            { market: 'IN', waiting: 51, claimed: 1 },
            { market: 'ID', waiting: 3, claimed: 0 },
          ]),
      },
    });
    renderConsole('/console/applications');
    expect(await screen.findByRole('link', { name: 'India (51)' })).toHaveAttribute('aria-current', 'page');
    expect(screen.getByRole('link', { name: 'Indonesia (3)' })).toBeInTheDocument();
    expect(screen.getByText('1 of them is claimed by a reviewer.')).toBeInTheDocument();
    const table = await screen.findByRole('table', { name: /51 applications waiting in India, oldest first/ });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(within(rows[0]!).getAllByRole('cell').at(-1)).toHaveTextContent('—');
    expect(within(rows[1]!).getAllByRole('cell').at(-1)).toHaveTextContent(/^farah, until \d\d:\d\d$/);
    const pages = screen.getByRole('navigation', { name: 'Pages' });
    expect(pages).toHaveTextContent('Page 1 of 2');
    await userEvent.setup().click(within(pages).getByRole('link', { name: 'Next page →' }));
    expect(await screen.findByText('Page 2 of 2')).toBeInTheDocument();
    expect(within(screen.getByRole('navigation', { name: 'Pages' })).getByRole('link', { name: '← Previous page' })).toBeInTheDocument();
    const asked = api.callsTo('GET', '/api/v1/console/applications').map((c) => [c.query.get('page'), c.query.get('pageSize')]);
    expect(asked).toContainEqual(['2', '50']);
  });
});
