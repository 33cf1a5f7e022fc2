import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { fakeConsoleApi, ok, OPERATORS, refusal, renderConsole } from '@/test/render-console';

const DEFINITION = {
  code: 'id-kilat-30',
  name: 'Kilat 30',
  market: 'ID',
  amount: { min: 100000000, max: 500000000, step: 50000000 },
  interest: { rate: '0.2%', per: 'day', method: 'flat' },
  rounding: 'whole',
  terms: [
    { code: '14d', period: '14d', installments: 1 },
    { code: '30d', period: '30d', installments: 1 },
  ],
  fees: [{ name: 'Biaya layanan', percent: '1%', fixed: 0 }],
  fees_deducted_at_disbursal: true,
  late_charge: { flat: 0, perDay: 100000, maxDays: 90 },
  extension: { days: 7, feePercent: '1%', feeFixed: 0, maxExtensions: 2 },
  cooling_off_days: 3,
};

const SAMPLE = { termCode: '14d', amount: 100000000, apr: 9900, aprDisplay: '99,00%', dailyCost: '0.2715%', dailyCap: '0.3%' };

const PRODUCT = {
  code: 'id-kilat-30',
  name: 'Kilat 30',
  market: 'ID',
  currency: 'IDR',
  version: 2,
  enabled: true,
  updatedAt: 1764000000000,
  amount: { min: 100000000, max: 500000000, step: 50000000 },
  terms: [{ code: '14d', period: '14d', installments: 1 }],
  interest: { rate: '0.2%', per: 'day', method: 'flat' },
  coolingOffDays: 3,
  sample: SAMPLE,
  definition: DEFINITION,
};

/** The preview the server would answer for a definition: the sample's APR follows the interest rate. */
function previewOf(body: unknown) {
  const definition = (body as { definition: typeof DEFINITION }).definition;
  const dearer = definition.interest.rate !== '0.2%';
  const sample = dearer ? { ...SAMPLE, apr: 11800, aprDisplay: '118,00%', dailyCost: '0.2929%' } : SAMPLE;
  return ok({
    sample,
    kfs: {
      currency: 'IDR',
      termCode: '14d',
      sanctionedAmount: 100000000,
      totalFees: 1000000,
      netDisbursed: 99000000,
      totalInterest: dearer ? 3500000 : 2800000,
      totalRepayable: dearer ? 103500000 : 102800000,
      aprDisplay: sample.aprDisplay,
      dailyCost: { rate: 1, cap: 1 },
      maxLateCharges: 9000000,
      disbursalDate: '2026-11-27',
      installments: [{ number: 1, dueDate: '2026-12-11', amount: dearer ? 103500000 : 102800000 }],
    },
  });
}

describe('products', () => {
  it('only admins see the Products and Operators sections', async () => {
    fakeConsoleApi({ operator: OPERATORS.reviewer, signedIn: true, handlers: { 'GET /api/v1/console/applications': () => ok([]) } });
    renderConsole('/console/applications?market=IN');
    await screen.findByRole('link', { name: 'Review queue' });
    expect(screen.queryByRole('link', { name: 'Products' })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Operators' })).toBeNull();
  });

  it('shows another market’s products to an admin who does not work in it, with nothing to change them by', async () => {
    fakeConsoleApi({ operator: OPERATORS.indiaAdmin, signedIn: true, handlers: { 'GET /api/v1/console/products': () => ok([PRODUCT]) } });
    renderConsole('/console/products?market=ID');
    const table = await screen.findByRole('table', { name: '1 products in Indonesia' });
    expect(within(table).getByText('Kilat 30', { exact: false })).toBeInTheDocument();
    expect(within(table).queryByRole('button')).toBeNull();
    expect(screen.queryByRole('button', { name: 'New product' })).toBeNull();
    expect(screen.getByText("You do not work in Indonesia: its products are shown, and changed by its lender's admins.")).toBeInTheDocument();
  });

  it('edits a product in a form with a live KFS, and asks before a live product changes price', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.adminOnly,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/products': () => ok([PRODUCT]),
        'POST /api/v1/console/products/preview': (call) => previewOf(call.body),
        'PUT /api/v1/console/products/id-kilat-30': (call) => ok({ ...PRODUCT, version: 3, definition: (call.body as object) }),
      },
    });
    renderConsole('/console/products?market=ID');
    const table = await screen.findByRole('table', { name: '1 products in Indonesia' });
    const cells = within(within(table).getAllByRole('row')[1]!).getAllByRole('cell').map((c) => c.textContent);
    expect(cells[0]).toBe('Kilat 30id-kilat-30 · v2');
    expect(cells[3]).toContain('daily cost 0.2715% (OJK cap 0.3%)');
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Edit Kilat 30' }));

    // Money in rupiah, rates in percent: no JSON.
    const form = screen.getByRole('form', { name: 'Edit id-kilat-30' });
    expect(within(form).queryByRole('textbox', { name: /JSON/ })).toBeNull();
    expect(within(form).getByRole('textbox', { name: 'Smallest loan' })).toHaveValue('1000000');
    expect(within(form).getByRole('textbox', { name: 'Rate' })).toHaveValue('0.2');
    expect(within(form).getByRole('textbox', { name: 'Each further day' })).toHaveValue('1000');
    expect(within(form).getByRole('textbox', { name: 'Code' })).toBeDisabled();

    // The live preview: the KFS of the smallest loan, with the daily cost against the OJK cap.
    const preview = screen.getByRole('complementary', { name: 'Key Fact Statement preview' });
    expect(await within(preview).findByText('99,00%')).toBeInTheDocument();
    expect(within(preview).getByText('0.2715% a day (OJK cap 0.3%)')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/products/preview')[0]!.body).toEqual({ definition: DEFINITION });

    // A dearer rate: the preview follows; saving asks first with the APR before and after.
    const rate = within(form).getByRole('textbox', { name: 'Rate' });
    await user.clear(rate);
    await user.type(rate, '0.25');
    expect(await within(preview).findByText('118,00%')).toBeInTheDocument();
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(screen.getByText(/The APR on Rp\s?1\.000\.000 for 14 days changes from 99,00% to 118,00%\./)).toBeInTheDocument();
    expect(api.callsTo('PUT', '/api/v1/console/products/id-kilat-30')).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Save the new price' }));
    expect(await screen.findByText('Kilat 30 saved as version 3.')).toBeInTheDocument();
    const put = api.callsTo('PUT', '/api/v1/console/products/id-kilat-30')[0]!;
    expect(put.body as typeof DEFINITION).toEqual({ ...DEFINITION, interest: { ...DEFINITION.interest, rate: '0.25%' } });
    // As a new version of the one opened.
    expect(put.query.get('baseVersion')).toBe('2');
  });

  it('says so when another admin saved a new version since the form was opened, and saves nothing over it', async () => {
    fakeConsoleApi({
      operator: OPERATORS.adminOnly,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/products': () => ok([PRODUCT]),
        'POST /api/v1/console/products/preview': (call) => previewOf(call.body),
        'PUT /api/v1/console/products/id-kilat-30': () => refusal(409, 'product_changed', 'Another admin changed this product.'),
      },
    });
    renderConsole('/console/products?market=ID');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit Kilat 30' }));
    const form = screen.getByRole('form', { name: 'Edit id-kilat-30' });
    const name = within(form).getByRole('textbox', { name: 'Name shown to borrowers' });
    await user.clear(name);
    await user.type(name, 'Kilat 30 plus');
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent(/Another admin saved a new version of this product since you opened it/);
    expect(screen.queryByText(/saved as version/)).toBeNull();
  });

  it('shows a cap the preview refuses beside the rate, and a field that does not read before any request', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.adminOnly,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/products': () => ok([PRODUCT]),
        'POST /api/v1/console/products/preview': () =>
          refusal(422, 'validation_failed', 'Some fields need your attention.', {
            fields: { interest: 'Daily cost 0.35% is over the OJK cap of 0.3% a day.' },
          }),
      },
    });
    renderConsole('/console/products?market=ID');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Edit Kilat 30' }));
    const rate = screen.getByRole('textbox', { name: 'Rate' });
    expect(await screen.findByText('Daily cost 0.35% is over the OJK cap of 0.3% a day.')).toBeInTheDocument();
    expect(rate).toHaveAccessibleDescription('Daily cost 0.35% is over the OJK cap of 0.3% a day.');

    const calls = api.callsTo('POST', '/api/v1/console/products/preview').length;
    const smallest = screen.getByRole('textbox', { name: 'Smallest loan' });
    await user.clear(smallest);
    await user.type(smallest, '1.000,5');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(smallest).toHaveAccessibleDescription('An amount in whole rupiah, e.g. 1.000.000.');
    expect(screen.getByRole('alert')).toHaveTextContent('Some fields need fixing');
    expect(api.callsTo('PUT', '/api/v1/console/products/id-kilat-30')).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 500));
    expect(api.callsTo('POST', '/api/v1/console/products/preview')).toHaveLength(calls);
  });
});

describe('operators', () => {
  it('creates an operator with roles and shows the server refusing a taken username by the field', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.adminOnly,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/operators': () =>
          ok([{ id: 'op-adm', username: 'ada', roles: ['admin'], markets: ['IN', 'ID'], passwordChangeRequired: false, enabled: true, locked: false, createdAt: 1764000000000, lastSignInAt: null }]),
        'POST /api/v1/console/operators': () =>
          refusal(422, 'validation_failed', 'Some fields need your attention.', { fields: { username: 'This username is taken.' } }),
      },
    });
    renderConsole('/console/operators');
    const table = await screen.findByRole('table', { name: '1 operator' });
    expect(within(table).queryByRole('button', { name: 'Disable' })).toBeNull();
    expect(within(table).getByRole('columnheader', { name: 'Last sign-in' })).toBeInTheDocument();
    expect(within(within(table).getAllByRole('row')[1]!).getAllByRole('cell')[5]).toHaveTextContent('Never');
    const user = userEvent.setup();
    const form = screen.getByRole('form', { name: 'New operator' });
    await user.type(within(form).getByLabelText('Username'), 'ada');
    await user.type(within(form).getByLabelText('Initial password (at least 12 characters)'), 'twelve chars');
    await user.click(within(form).getByLabelText('reviewer'));
    await user.click(within(form).getByRole('button', { name: 'Create operator' }));
    expect(await screen.findByText('This username is taken.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/operators')[0]!.body).toEqual({ username: 'ada', password: 'twelve chars', roles: ['reviewer'], markets: ['IN', 'ID'] });
    // An admin's own password is changed with the current one (Account), never reset from this list.
    expect(within(table).queryByRole('button', { name: 'Reset password' })).toBeNull();
  });

  it('starts a row again from what is stored when another admin changed it, so a save never gives back a revoked role', async () => {
    const ada = { id: 'op-adm', username: 'ada', roles: ['admin'], markets: ['IN', 'ID'], passwordChangeRequired: false, enabled: true, locked: false, createdAt: 1764000000000, lastSignInAt: null };
    const fin = { ...ada, id: 'op-fin', username: 'fina', roles: ['finance'] };
    const rev = { ...ada, id: 'op-rev', username: 'reva', roles: ['reviewer'] };
    let lists = 0;
    fakeConsoleApi({
      operator: OPERATORS.adminOnly,
      signedIn: true,
      handlers: {
        // Another admin revokes fina's finance role between the first list and the next.
        'GET /api/v1/console/operators': () => ok(lists++ === 0 ? [ada, fin, rev] : [ada, { ...fin, roles: ['support'] }, { ...rev, enabled: false }]),
        'POST /api/v1/console/operators/op-rev/disable': () => ok({ ...rev, enabled: false }),
      },
    });
    renderConsole('/console/operators');
    const user = userEvent.setup();
    const boxes = () => within(screen.getByRole('group', { name: 'Roles of fina' }));
    await screen.findByRole('table', { name: '3 operators' });
    // This admin starts ticking reviewer for fina (not saved), then disables reva: the list is read again.
    await user.click(boxes().getByLabelText('reviewer'));
    expect(boxes().getByLabelText('finance')).toBeChecked();
    const revaRow = screen.getByRole('row', { name: /reva/ });
    await user.click(within(revaRow).getByRole('button', { name: 'Disable' }));
    await screen.findByText('reva is disabled and signed out everywhere.');
    await vi.waitFor(() => expect(boxes().getByLabelText('support')).toBeChecked());
    expect(boxes().getByLabelText('finance')).not.toBeChecked();
    expect(boxes().getByLabelText('reviewer')).not.toBeChecked();
    expect(screen.queryByRole('button', { name: 'Save roles' })).toBeNull();
  });
});
