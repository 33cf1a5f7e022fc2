import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeConsoleApi, ok, OPERATORS, refusal, renderConsole } from '@/test/render-console';

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
  sample: { termCode: '14d', amount: 100000000, apr: 9900, aprDisplay: '99.00%', dailyCost: '0.2715%', dailyCap: '0.3%' },
  definition: { code: 'id-kilat-30', name: 'Kilat 30', market: 'ID', interest: { rate: '0.2%', per: 'day', method: 'flat' } },
};

describe('products', () => {
  it('only admins see the Products and Operators sections', async () => {
    fakeConsoleApi({ operator: OPERATORS.reviewer, signedIn: true, handlers: { 'GET /api/v1/console/applications': () => ok([]) } });
    renderConsole('/console/applications?market=IN');
    await screen.findByRole('link', { name: 'Review queue' });
    expect(screen.queryByRole('link', { name: 'Products' })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Operators' })).toBeNull();
  });

  it('lists a market with its price against the cap, and shows a cap refusal inline on edit', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.adminOnly,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/products': () => ok([PRODUCT]),
        'PUT /api/v1/console/products/id-kilat-30': () =>
          refusal(422, 'validation_failed', 'Some fields need your attention.', {
            fields: { interest: 'Daily cost 0.35% is over the OJK cap of 0.3% a day.' },
          }),
      },
    });
    renderConsole('/console/products?market=ID');
    const table = await screen.findByRole('table', { name: '1 products in Indonesia' });
    const cells = within(within(table).getAllByRole('row')[1]!).getAllByRole('cell').map((c) => c.textContent);
    expect(cells[0]).toBe('Kilat 30id-kilat-30 · v2');
    expect(cells[3]).toContain('daily cost 0.2715% (OJK cap 0.3%)');
    expect(cells[4]).toBe('Offered');
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Edit Kilat 30' }));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(/Daily cost 0\.35% is over the OJK cap of 0\.3% a day\./)).toHaveAttribute('role', 'alert');
    expect(api.callsTo('PUT', '/api/v1/console/products/id-kilat-30')[0]!.body).toEqual(PRODUCT.definition);
  });
});

describe('operators', () => {
  it('creates an operator with roles and shows the server refusing a taken username by the field', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.adminOnly,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/operators': () =>
          ok([{ id: 'op-adm', username: 'ada', roles: ['admin'], enabled: true, locked: false, createdAt: 1764000000000 }]),
        'POST /api/v1/console/operators': () =>
          refusal(422, 'validation_failed', 'Some fields need your attention.', { fields: { username: 'This username is taken.' } }),
      },
    });
    renderConsole('/console/operators');
    const table = await screen.findByRole('table', { name: '1 operators' });
    expect(within(table).queryByRole('button', { name: 'Disable' })).toBeNull();
    const user = userEvent.setup();
    const form = screen.getByRole('form', { name: 'New operator' });
    await user.type(within(form).getByLabelText('Username'), 'ada');
    await user.type(within(form).getByLabelText('Initial password (at least 12 characters)'), 'twelve chars');
    await user.click(within(form).getByLabelText('reviewer'));
    await user.click(within(form).getByRole('button', { name: 'Create operator' }));
    expect(await screen.findByText('This username is taken.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/operators')[0]!.body).toEqual({ username: 'ada', password: 'twelve chars', roles: ['reviewer'] });
  });
});
