import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeConsoleApi, ok, OPERATORS, refusal, renderConsole } from '@/test/render-console';
import { PAYMENTS } from './finance.test-data';

const QUEUE = 'GET /api/v1/console/payments';

async function payments() {
  return within(await screen.findByRole('list', { name: /waiting for finance/ })).getAllByRole('listitem');
}

describe('repayments', () => {
  it('lists the queue with the loan’s outstanding, UTRs and held payments marked', async () => {
    fakeConsoleApi({ operator: OPERATORS.finance, signedIn: true, handlers: { [QUEUE]: () => ok(PAYMENTS) } });
    renderConsole('/console/repayments');
    const list = await screen.findByRole('list', { name: '2 payments waiting for finance, oldest first' });
    const items = within(list).getAllByRole('listitem');
    expect(items[0]).toHaveTextContent('₹3,500.25');
    expect(items[0]).toHaveTextContent('₹21,001.50');
    expect(items[0]).toHaveTextContent('700000000001');
    expect(within(items[0]!).queryByText('Held')).not.toBeInTheDocument();
    expect(within(items[1]!).getByText('Held')).toBeInTheDocument();
    expect(within(items[0]!).getByRole('link', { name: 'KL-261120-PAIDXX' })).toHaveAttribute('href', '/console/orders/KL-261120-PAIDXX');
  });

  it('confirms with the amount received, prefilled and sent in minor units, after a step that states it', async () => {
    let done = false;
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [QUEUE]: () => ok(done ? PAYMENTS.slice(1) : PAYMENTS),
        'POST /api/v1/console/payments/pay1/confirm': () => {
          done = true;
          return ok({ payment: { ...PAYMENTS[0]!.payment, status: 'confirmed' }, orderStatus: 'disbursed', ledgerSeq: 8 });
        },
      },
    });
    renderConsole('/console/repayments');
    const user = userEvent.setup();
    const first = (await payments())[0]!;
    await user.click(within(first).getByRole('button', { name: 'Confirm' }));
    const field = within(first).getByLabelText('Amount received (INR)');
    expect(field).toHaveValue('3500.25');
    await user.clear(field);
    await user.type(field, '35x');
    await user.click(within(first).getByRole('button', { name: 'Continue' }));
    expect(within(first).getByText('Enter the amount received, e.g. 3500 or 3500.25.')).toBeInTheDocument();
    await user.clear(field);
    await user.type(field, '3,500.25');
    await user.click(within(first).getByRole('button', { name: 'Continue' }));
    expect(within(first).getByText('Credit ₹3,500.25 received for KPPAY1000000 to the loan?')).toBeInTheDocument();
    await user.click(within(first).getByRole('button', { name: 'Confirm ₹3,500.25' }));
    expect(await screen.findByText('KPPAY1000000: ₹3,500.25 credited to the loan.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/payments/pay1/confirm').map((c) => c.body)).toEqual([{ amount: 350025 }]);
    expect(await screen.findByRole('list', { name: '1 payment waiting for finance, oldest first' })).toBeInTheDocument();
  });

  it('warns that another amount is held, and rejects only with a reason', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [QUEUE]: () => ok(PAYMENTS),
        'POST /api/v1/console/payments/pay2/reject': () => ok({ ...PAYMENTS[1]!.payment, status: 'rejected', reason: 'No credit.' }),
      },
    });
    renderConsole('/console/repayments');
    const user = userEvent.setup();
    const [first, second] = await payments();
    await user.click(within(first!).getByRole('button', { name: 'Confirm' }));
    const field = within(first!).getByLabelText('Amount received (INR)');
    await user.clear(field);
    await user.type(field, '3000');
    await user.click(within(first!).getByRole('button', { name: 'Continue' }));
    expect(within(first!).getByText(/₹3,000 differs from the ₹3,500.25 asked: the payment will be held/)).toBeInTheDocument();

    await user.click(within(second!).getByRole('button', { name: 'Reject' }));
    await user.click(within(second!).getByRole('button', { name: 'Reject payment' }));
    expect(within(second!).getByText('Give the reason the borrower will see.')).toBeInTheDocument();
    await user.type(within(second!).getByLabelText('Reason (the borrower sees it)'), '  No credit.  ');
    await user.click(within(second!).getByRole('button', { name: 'Reject payment' }));
    expect(await screen.findByText('KPPAY2000000 rejected.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/payments/pay2/reject').map((c) => c.body)).toEqual([{ reason: 'No credit.' }]);
  });

  it('reads the queue again when someone else decided the payment first (409), and says nothing waits', async () => {
    let empty = false;
    fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [QUEUE]: () => (empty ? ok([]) : ok(PAYMENTS)),
        'POST /api/v1/console/payments/pay1/confirm': () => refusal(409, 'payment_not_open', 'Not open.'),
      },
    });
    renderConsole('/console/repayments');
    const user = userEvent.setup();
    const first = (await payments())[0]!;
    await user.click(within(first).getByRole('button', { name: 'Confirm' }));
    await user.click(within(first).getByRole('button', { name: 'Continue' }));
    empty = true;
    await user.click(within(first).getByRole('button', { name: 'Confirm ₹3,500.25' }));
    expect(await screen.findByText('No payments are waiting for verification.')).toBeInTheDocument();
  });

  it('shows a failed read with a retry', async () => {
    let fail = true;
    fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: { [QUEUE]: () => (fail ? refusal(500, 'internal', 'Something went wrong on our side.') : ok([])) },
    });
    renderConsole('/console/repayments');
    expect(await screen.findByRole('alert')).toHaveTextContent('Something went wrong on our side.');
    fail = false;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('No payments are waiting for verification.')).toBeInTheDocument();
  });
});
