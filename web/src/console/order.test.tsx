import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { CSRF, OPERATORS, fakeConsoleApi, ok, refusal, renderConsole } from '@/test/render-console';
import { LOAN, LOAN_EXITED } from './finance.test-data';
import { QUEUE_IN, consoleOrder } from './fixtures.test-data';

const ORDER_PATH = '/api/v1/console/orders/KL-261123-BBBBBB';
const PAGE = '/console/orders/KL-261123-BBBBBB';

describe('order view', () => {
  it('shows a reviewer the borrower, the certification in full, the KFS and the timeline', async () => {
    fakeConsoleApi({ signedIn: true, handlers: { [`GET ${ORDER_PATH}`]: () => ok(consoleOrder({ unmasked: true })) } });
    renderConsole(PAGE);
    expect(await screen.findByRole('heading', { level: 1, name: /Order KL-261123-BBBBBB/ })).toHaveTextContent('Pending review');
    const summary = screen.getByRole('region', { name: 'Application' });
    expect(summary).toHaveTextContent('+91 ******4455');
    expect(summary).toHaveTextContent('₹6,000');
    expect(summary).toHaveTextContent('83.87%');

    const cert = screen.getByRole('region', { name: 'Certification' });
    expect(cert).toHaveTextContent('shown in full to reviewers; this view is recorded in the audit trail');
    expect(within(cert).getByText('ABCPE1234F')).toBeInTheDocument();
    expect(within(cert).getByText('501001234567')).toBeInTheDocument();
    expect(within(cert).getByText('₹45,000')).toBeInTheDocument();

    const kfs = screen.getByRole('region', { name: 'Key Fact Statement (as accepted)' });
    const schedule = within(kfs).getByRole('table', { name: 'Schedule' });
    expect(within(schedule).getAllByRole('row')).toHaveLength(4);
    expect(within(schedule).getByText('3 Jan 2027')).toBeInTheDocument();
    expect(within(schedule).getByText('₹2,067.60')).toBeInTheDocument();
    expect(kfs).toHaveTextContent('₹400 once per overdue installment (at most ₹1,200 over the loan)');
    expect(kfs).not.toHaveTextContent('a day for');

    const timeline = screen.getByRole('region', { name: 'Timeline' });
    expect(timeline).toHaveTextContent('Borrower');
  });

  it('shows support masked numbers and no decision', async () => {
    const order = consoleOrder({ unmasked: false });
    const daily = { ...order, order: { ...order.order, kfs: { ...order.order.kfs, lateCharge: { flat: 40000, perDay: 5000, maxDays: 30 } } } };
    fakeConsoleApi({ operator: OPERATORS.support, signedIn: true, handlers: { [`GET ${ORDER_PATH}`]: () => ok(daily) } });
    renderConsole(PAGE);
    const cert = await screen.findByRole('region', { name: 'Certification' });
    expect(screen.getByRole('region', { name: 'Key Fact Statement (as accepted)' })).toHaveTextContent(
      '₹400 once per overdue installment, then ₹50 a day for at most 30 days (at most ₹1,200 over the loan)',
    );
    expect(cert).toHaveTextContent('masked for your role');
    expect(within(cert).getByText('******234F')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Decision' })).not.toBeInTheDocument();
  });

  it('approves after a confirmation that restates the order, the amount and the reason, sending the CSRF token', async () => {
    let status = 'pending_review';
    const api = fakeConsoleApi({
      signedIn: true,
      handlers: {
        [`GET ${ORDER_PATH}`]: () => ok(consoleOrder({ unmasked: true, status, reviewReason: status === 'approved' ? 'Income verified.' : null })),
        [`POST ${ORDER_PATH}/approve`]: () => {
          status = 'approved';
          return ok({ orderNo: 'KL-261123-BBBBBB', status: 'approved' });
        },
      },
    });
    renderConsole(PAGE);
    const user = userEvent.setup();
    const decision = await screen.findByRole('region', { name: 'Decision' });
    await user.type(within(decision).getByLabelText('Reason (the borrower sees it)'), '  Income verified.  ');
    await user.click(within(decision).getByRole('button', { name: 'Approve…' }));
    expect(api.callsTo('POST', `${ORDER_PATH}/approve`)).toHaveLength(0);
    const confirm = within(decision).getByRole('group');
    expect(confirm).toHaveTextContent('Approve KL-261123-BBBBBB for ₹6,000? The borrower will read: “Income verified.”');

    await user.click(within(confirm).getByRole('button', { name: 'Yes, approve' }));
    expect(await screen.findByRole('status')).toHaveTextContent('KL-261123-BBBBBB is approved.');
    const [approve] = api.callsTo('POST', `${ORDER_PATH}/approve`);
    expect(approve!.body).toEqual({ reason: 'Income verified.' });
    expect(approve!.headers['X-CSRF-Token']).toBe(CSRF);
    await waitFor(() => expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Approved'));
    expect(screen.queryByRole('region', { name: 'Decision' })).not.toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Application' })).toHaveTextContent('Income verified.');
  });

  it('needs a reason to reject, and can step back from the confirmation', async () => {
    const api = fakeConsoleApi({ signedIn: true, handlers: { [`GET ${ORDER_PATH}`]: () => ok(consoleOrder({ unmasked: true })) } });
    renderConsole(PAGE);
    const user = userEvent.setup();
    const decision = await screen.findByRole('region', { name: 'Decision' });
    await user.click(within(decision).getByRole('button', { name: 'Reject…' }));
    expect(within(decision).getByText('Write the reason for rejecting: the borrower is shown it.')).toBeInTheDocument();
    expect(within(decision).queryByRole('group')).not.toBeInTheDocument();

    await user.type(within(decision).getByLabelText('Reason (the borrower sees it)'), 'Income below the minimum.');
    await user.click(within(decision).getByRole('button', { name: 'Reject…' }));
    expect(within(decision).getByRole('group')).toHaveTextContent('Reject KL-261123-BBBBBB for ₹6,000?');
    await user.click(within(decision).getByRole('button', { name: 'Back' }));
    expect(within(decision).queryByRole('group')).not.toBeInTheDocument();
    expect(api.callsTo('POST', `${ORDER_PATH}/reject`)).toHaveLength(0);
  });

  it('says plainly when the order was decided meanwhile (409) and shows its state now', async () => {
    let status = 'pending_review';
    fakeConsoleApi({
      signedIn: true,
      handlers: {
        [`GET ${ORDER_PATH}`]: () => ok(consoleOrder({ unmasked: true, status })),
        [`POST ${ORDER_PATH}/reject`]: () => {
          status = 'approved';
          return refusal(409, 'invalid_transition', 'This loan cannot move to that state now.');
        },
      },
    });
    renderConsole(PAGE);
    const user = userEvent.setup();
    const decision = await screen.findByRole('region', { name: 'Decision' });
    await user.type(within(decision).getByLabelText('Reason (the borrower sees it)'), 'Documents unclear.');
    await user.click(within(decision).getByRole('button', { name: 'Reject…' }));
    await user.click(within(decision).getByRole('button', { name: 'Yes, reject' }));
    expect(await within(decision).findByRole('alert')).toHaveTextContent('no longer waiting for review');
    await waitFor(() => expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Approved'));
  });

  it('shows the server’s field error for the reason', async () => {
    fakeConsoleApi({
      signedIn: true,
      handlers: {
        [`GET ${ORDER_PATH}`]: () => ok(consoleOrder({ unmasked: true })),
        [`POST ${ORDER_PATH}/approve`]: () =>
          refusal(422, 'validation_failed', 'Some fields need your attention.', { fields: { reason: 'At most 500 characters.' } }),
      },
    });
    renderConsole(PAGE);
    const user = userEvent.setup();
    const decision = await screen.findByRole('region', { name: 'Decision' });
    await user.type(within(decision).getByLabelText('Reason (the borrower sees it)'), 'Fine.');
    await user.click(within(decision).getByRole('button', { name: 'Approve…' }));
    await user.click(within(decision).getByRole('button', { name: 'Yes, approve' }));
    expect(await within(decision).findByText('At most 500 characters.')).toBeInTheDocument();
    expect(within(decision).getByLabelText('Reason (the borrower sees it)')).toHaveAttribute('aria-invalid', 'true');
  });

  it('reads the order again each time it is opened, so every unmasked view is one the audit trail records', async () => {
    const api = fakeConsoleApi({
      signedIn: true,
      handlers: {
        [`GET ${ORDER_PATH}`]: () => ok(consoleOrder({ unmasked: true })),
        'GET /api/v1/console/applications': () => ok([{ ...QUEUE_IN[1]!, orderNo: 'KL-261123-BBBBBB' }]),
      },
    });
    renderConsole(PAGE);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('link', { name: 'Back to the review queue' }));
    await user.click(await screen.findByRole('link', { name: 'KL-261123-BBBBBB' }));
    expect(await screen.findByRole('region', { name: 'Certification' })).toHaveTextContent('ABCPE1234F');
    expect(api.callsTo('GET', ORDER_PATH)).toHaveLength(2);
  });

  it('says when there is no such order', async () => {
    fakeConsoleApi({ signedIn: true });
    renderConsole('/console/orders/KL-000000-NOPE00');
    expect(await screen.findByRole('alert')).toHaveTextContent('Not found.');
    expect(screen.queryByRole('button', { name: 'Try again' })).not.toBeInTheDocument();
  });
});

describe('order view of a paid-out loan', () => {
  it('shows the payout, the plan with each installment’s status, the payments and the ledger', async () => {
    fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: { [`GET ${ORDER_PATH}`]: () => ok({ ...consoleOrder({ unmasked: false, status: 'disbursed' }), loan: LOAN }) },
    });
    renderConsole(PAGE);
    const payout = await screen.findByRole('region', { name: 'Payout' });
    expect(payout).toHaveTextContent('HDFCN5202611');
    expect(payout).toHaveTextContent('25 Nov 2026');
    expect(payout).toHaveTextContent('₹5,823');
    expect(payout).toHaveTextContent('₹4,134.40');

    const plan = within(screen.getByRole('region', { name: 'Installment plan' })).getByRole('table');
    const rows = within(plan).getAllByRole('row').slice(1);
    const cells = rows.map((row) => within(row).getAllByRole('cell').map((cell) => cell.textContent));
    expect(cells[0]).toEqual(['1', '9 Dec 2026', '₹2,000', '₹67.20', '₹0', '₹0', '₹2,067.20', '₹2,067.20', '₹0', 'Paid']);
    expect(cells[1]![9]).toBe('Upcoming');

    const payments = screen.getByRole('region', { name: 'Payments' });
    expect(within(payments).getAllByRole('row')[1]!.textContent).toMatch(/KPPAY1000000.*UPI.*700000000001.*₹2,067\.20.*₹2,067\.20.*Confirmed/);

    const ledger = within(screen.getByRole('region', { name: 'Ledger' })).getByRole('table');
    const entries = within(ledger).getAllByRole('row').slice(1).map((row) => within(row).getAllByRole('cell').map((c) => c.textContent));
    expect(entries).toEqual([
      ['0', 'Payout', '25 Nov 2026', '₹5,823', '₹6,201.60', '₹0', '₹0', '₹0', '₹0', '₹0'],
      ['1', 'Repayment', '9 Dec 2026', '₹2,067.20', '₹0', '₹2,000', '₹67.20', '₹0', '₹0', '₹0'],
    ]);
  });

  it('shows a cooling-off exit as the principal and the days’ interest, the fees kept at payout refunded', async () => {
    fakeConsoleApi({
      operator: OPERATORS.support,
      signedIn: true,
      handlers: { [`GET ${ORDER_PATH}`]: () => ok({ ...consoleOrder({ unmasked: false, status: 'exited_in_cooling_off' }), loan: LOAN_EXITED }) },
    });
    renderConsole(PAGE);
    const ledger = within(await screen.findByRole('region', { name: 'Ledger' })).getByRole('table');
    const headers = within(ledger).getAllByRole('columnheader').map((h) => h.textContent);
    expect(headers.slice(3)).toEqual(['Cash', 'Added to dues', 'Principal paid', 'Interest paid', 'Fees paid', 'Late charges paid', 'Fees refunded']);
    const exit = within(ledger).getAllByRole('row').at(-1)!;
    expect(within(exit).getAllByRole('cell').map((c) => c.textContent)).toEqual([
      '1',
      'Cooling-off exit',
      '27 Nov 2026',
      '₹5,832.60',
      '-₹192',
      '₹6,000',
      '₹9.60',
      '₹0',
      '₹0',
      '₹177',
    ]);
    const plan = within(screen.getByRole('region', { name: 'Installment plan' })).getByRole('table');
    const fees = within(plan).getAllByRole('row').slice(1).map((row) => within(row).getAllByRole('cell')[4]!.textContent);
    expect(fees).toEqual(['₹0', '₹0', '₹0']);
  });

  it('names every payment status, with the refund owed or sent', async () => {
    const base = LOAN.payments[0]!;
    const loan = {
      ...LOAN,
      payments: [
        base,
        { ...base, paymentId: 'pay2', reference: 'KPPAY2000000', status: 'refund_due', receivedAmount: 50000, refundAmount: 20000 },
        { ...base, paymentId: 'pay3', reference: 'KPPAY3000000', status: 'refunded', receivedAmount: 30000, refundAmount: 30000, refundReference: 'N2612345' },
        { ...base, paymentId: 'pay4', reference: 'KPPAY4000000', status: 'held', receivedAmount: 100000 },
      ],
    };
    fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: { [`GET ${ORDER_PATH}`]: () => ok({ ...consoleOrder({ unmasked: false, status: 'disbursed' }), loan }) },
    });
    renderConsole(PAGE);
    const payments = await screen.findByRole('region', { name: 'Payments' });
    const status = within(payments)
      .getAllByRole('row')
      .slice(1)
      .map((row) => within(row).getAllByRole('cell')[6]!.textContent);
    expect(status).toEqual(['Confirmed', 'Refund due · ₹200 to refund', 'Refunded · ₹300 refunded, ref. N2612345', 'Held']);
  });

  it('shows no loan sections before payout', async () => {
    fakeConsoleApi({ operator: OPERATORS.finance, signedIn: true, handlers: { [`GET ${ORDER_PATH}`]: () => ok({ ...consoleOrder({ unmasked: false, status: 'approved' }), loan: null }) } });
    renderConsole(PAGE);
    expect(await screen.findByRole('heading', { level: 1, name: /Order KL-261123-BBBBBB/ })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Payout' })).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Ledger' })).not.toBeInTheDocument();
  });
});
