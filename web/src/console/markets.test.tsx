import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { OPERATORS, fakeConsoleApi, ok, refusal, renderConsole } from '@/test/render-console';

const ACCOUNT = {
  id: 'op-rev',
  username: 'rita',
  roles: ['reviewer'],
  markets: ['IN', 'ID'],
  passwordChangeRequired: false,
  enabled: true,
  locked: false,
  createdAt: 1764000000000,
  lastSignInAt: null,
};

describe('operators scoped to markets', () => {
  it("an Indonesian operator's market tabs offer Indonesia only, and its queue is the one asked for", async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.indonesia,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/applications': () => ok([]),
        'GET /api/v1/console/applications/counts': () => ok([{ market: 'ID', waiting: 3, claimed: 1 }]),
      },
    });
    renderConsole('/console/applications');
    const tabs = await screen.findByRole('navigation', { name: 'Market' });
    await within(tabs).findByText('Indonesia (3)');
    expect(within(tabs).getAllByRole('link').map((l) => l.textContent)).toEqual(['Indonesia (3)']);
    expect(await screen.findByText('No applications are waiting for review in Indonesia.')).toBeInTheDocument();
    expect(api.callsTo('GET', '/api/v1/console/applications').every((c) => c.query.get('market') === 'ID')).toBe(true);
    expect(api.callsTo('GET', '/api/v1/console/applications').length).toBeGreaterThan(0);
  });

  it('the admin chooses markets with checkboxes, sees them in the list, and reads the server\'s error for none', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.adminOnly,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/operators': () => ok([ACCOUNT, { ...ACCOUNT, id: 'op-2', username: 'budi', markets: ['ID'], passwordChangeRequired: true }]),
        'POST /api/v1/console/operators': (call) =>
          (call.body as { markets: string[] }).markets.length === 0
            ? refusal(422, 'validation_failed', 'Some fields need your attention.', { fields: { markets: 'Choose at least one market.' } })
            : ok({ ...ACCOUNT, id: 'op-3', username: 'asha', markets: (call.body as { markets: string[] }).markets, passwordChangeRequired: true }),
        'PUT /api/v1/console/operators/op-rev/markets': (call) => ok({ ...ACCOUNT, markets: (call.body as { markets: string[] }).markets }),
      },
    });
    renderConsole('/console/operators');
    const user = userEvent.setup();
    const rows = await screen.findAllByRole('row');
    const budi = rows.find((r) => within(r).queryByText('budi'))!;
    const budiMarkets = within(budi).getByRole('group', { name: 'Markets of budi' });
    expect(within(budiMarkets).getByRole('checkbox', { name: 'Indonesia' })).toBeChecked();
    expect(within(budiMarkets).getByRole('checkbox', { name: 'India' })).not.toBeChecked();
    expect(within(budi).getByText(/must choose a new password/)).toBeInTheDocument();

    // A new operator: both markets ticked by default; with none, the server's words under the boxes.
    const form = screen.getByRole('form', { name: 'New operator' });
    const newMarkets = within(form).getByRole('group', { name: 'Markets of the new operator' });
    await user.type(within(form).getByLabelText('Username'), 'asha');
    await user.type(within(form).getByLabelText(/Initial password/), 'a long initial pw');
    await user.click(within(form).getByRole('checkbox', { name: 'reviewer' }));
    await user.click(within(newMarkets).getByRole('checkbox', { name: 'India' }));
    await user.click(within(newMarkets).getByRole('checkbox', { name: 'Indonesia' }));
    await user.click(within(form).getByRole('button', { name: 'Create operator' }));
    expect(await within(form).findByText('Choose at least one market.')).toBeInTheDocument();
    await user.click(within(newMarkets).getByRole('checkbox', { name: 'Indonesia' }));
    await user.click(within(form).getByRole('button', { name: 'Create operator' }));
    expect(await screen.findByText('asha was created.')).toBeInTheDocument();
    const creates = api.callsTo('POST', '/api/v1/console/operators');
    expect(creates.map((c) => (c.body as { markets: string[] }).markets)).toEqual([[], ['ID']]);

    // Rita to India only: "Save markets" appears once changed, and sends the markets.
    const rita = (await screen.findAllByRole('row')).find((r) => within(r).queryByText('rita'))!;
    expect(within(rita).queryByRole('button', { name: 'Save markets' })).toBeNull();
    await user.click(within(within(rita).getByRole('group', { name: 'Markets of rita' })).getByRole('checkbox', { name: 'Indonesia' }));
    await user.click(within(rita).getByRole('button', { name: 'Save markets' }));
    expect(await screen.findByText("rita's markets were saved.")).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/v1/console/operators/op-rev/markets')[0]!.body).toEqual({ markets: ['IN'] });
  });
});

describe('an admin of one market', () => {
  it("offers only their market for a new operator and an operator's markets, and not their own markets", async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.indiaAdmin,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/operators': () =>
          ok([
            { ...ACCOUNT, id: 'op-ina', username: 'inez', roles: ['admin'], markets: ['IN'] },
            { ...ACCOUNT, markets: ['IN'] },
          ]),
        'POST /api/v1/console/operators': (call) =>
          ok({ ...ACCOUNT, id: 'op-3', username: 'asha', markets: (call.body as { markets: string[] }).markets, passwordChangeRequired: true }),
      },
    });
    renderConsole('/console/operators');
    const user = userEvent.setup();
    const rows = await screen.findAllByRole('row');
    const inez = rows.find((r) => within(r).queryByText('inez'))!;
    expect(within(inez).queryByRole('group', { name: 'Markets of inez' })).toBeNull();
    expect(within(inez).getByText('India')).toBeInTheDocument();
    const rita = rows.find((r) => within(r).queryByText('rita'))!;
    const ritaMarkets = within(rita).getByRole('group', { name: 'Markets of rita' });
    expect(within(ritaMarkets).getAllByRole('checkbox').map((c) => c.closest('label')!.textContent!.trim())).toEqual(['India']);

    const form = screen.getByRole('form', { name: 'New operator' });
    const newMarkets = within(form).getByRole('group', { name: 'Markets of the new operator' });
    expect(within(newMarkets).getAllByRole('checkbox')).toHaveLength(1);
    expect(within(newMarkets).getByRole('checkbox', { name: 'India' })).toBeChecked();
    await user.type(within(form).getByLabelText('Username'), 'asha');
    await user.type(within(form).getByLabelText(/Initial password/), 'a long initial pw');
    await user.click(within(form).getByRole('checkbox', { name: 'reviewer' }));
    await user.click(within(form).getByRole('button', { name: 'Create operator' }));
    expect(await screen.findByText('asha was created.')).toBeInTheDocument();
    expect((api.callsTo('POST', '/api/v1/console/operators')[0]!.body as { markets: string[] }).markets).toEqual(['IN']);
  });
});

describe('a password an admin set', () => {
  it('shows "Choose your own password" before anything else, checks the fields, and goes on once saved', async () => {
    let required = true;
    const api = fakeConsoleApi({
      operator: OPERATORS.newcomer,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/me': () => ok({ ...OPERATORS.newcomer, passwordChangeRequired: required }),
        'GET /api/v1/console/applications': () => ok([]),
        'GET /api/v1/console/applications/counts': () => ok([{ market: 'IN', waiting: 0, claimed: 0 }]),
        'POST /api/v1/console/password': (call) => {
          const body = call.body as { currentPassword: string; password: string };
          if (body.currentPassword !== 'set by the admin') {
            return refusal(422, 'validation_failed', 'Some fields need your attention.', { fields: { currentPassword: 'This is not your current password.' } });
          }
          required = false;
          return ok({ ...OPERATORS.newcomer, passwordChangeRequired: false });
        },
      },
    });
    renderConsole('/console/applications');
    expect(await screen.findByRole('heading', { level: 1, name: 'Choose your own password' })).toBeInTheDocument();
    expect(screen.queryByRole('navigation', { name: 'Console sections' })).toBeNull();
    expect(api.callsTo('GET', '/api/v1/console/applications')).toHaveLength(0);

    const user = userEvent.setup();
    const save = screen.getByRole('button', { name: 'Save my password' });
    await user.click(save);
    expect(screen.getByText('Enter the password you signed in with.')).toBeInTheDocument();
    expect(screen.getByText('Use at least 12 characters.')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Password you signed in with'), 'a wrong guess');
    await user.type(screen.getByLabelText('New password'), 'my very own words');
    await user.type(screen.getByLabelText('New password again'), 'my very own wordz');
    await user.click(save);
    expect(screen.getByText('The two new passwords are not the same.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/password')).toHaveLength(0);
    await user.clear(screen.getByLabelText('New password again'));
    await user.type(screen.getByLabelText('New password again'), 'my very own words');
    await user.click(save);
    expect(await screen.findByText('This is not your current password.')).toBeInTheDocument();
    expect(screen.getByLabelText('Password you signed in with')).toHaveAttribute('aria-invalid', 'true');
    await user.clear(screen.getByLabelText('Password you signed in with'));
    await user.type(screen.getByLabelText('Password you signed in with'), 'set by the admin');
    await user.click(save);
    expect(await screen.findByRole('heading', { level: 1, name: 'Review queue' })).toBeInTheDocument();
    const [, sent] = api.callsTo('POST', '/api/v1/console/password');
    expect(sent!.body).toEqual({ currentPassword: 'set by the admin', password: 'my very own words' });
    expect(sent!.headers['X-CSRF-Token']).toBeDefined();
  });
});
