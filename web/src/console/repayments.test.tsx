import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeConsoleApi, ok, OPERATORS, refusal, renderConsole } from '@/test/render-console';
import { APPROVED_AT, PAYMENTS, REFUND_DUE } from './finance.test-data';

const QUEUE = 'GET /api/v1/console/payments';
const COUNTS = 'GET /api/v1/console/payments/counts';

/** The waiting counts per market and status, zero unless given (`IN:held` → 1). */
function counts(given: Record<string, number>) {
  return ['IN', 'ID'].flatMap((market) =>
    ['verifying', 'held', 'refund_due'].map((status) => ({ market, status, count: given[`${market}:${status}`] ?? 0 })),
  );
}

/** A UTR to verify in Indonesia: Rp 1.000.000 asked. */
const IDR_ITEM = {
  ...PAYMENTS[0]!,
  market: 'ID',
  currency: 'IDR',
  outstanding: 500_000_000,
  payment: { ...PAYMENTS[0]!.payment, currency: 'IDR', amount: 100_000_000 },
};

/** As many UTRs to verify as the server lists at most (200). */
const FULL_QUEUE = Array.from({ length: 200 }, (_, i) => ({
  ...PAYMENTS[0]!,
  payment: { ...PAYMENTS[0]!.payment, paymentId: `v${i}`, reference: `KPV${String(i).padStart(9, '0')}` },
}));

async function payments() {
  return within(await screen.findByRole('list', { name: /waiting for finance/ })).getAllByRole('listitem');
}

describe('repayments', () => {
  it('lists the queue with the loan’s outstanding, the amount asked beside the amount received, and each status', async () => {
    fakeConsoleApi({ operator: OPERATORS.finance, signedIn: true, handlers: { [QUEUE]: () => ok([...PAYMENTS, REFUND_DUE]) } });
    renderConsole('/console/repayments');
    const list = await screen.findByRole('list', { name: '3 payments waiting for finance, oldest first' });
    const items = within(list).getAllByRole('listitem');
    expect(items[0]).toHaveTextContent('₹3,500.25');
    expect(items[0]).toHaveTextContent('₹21,001.50');
    expect(items[0]).toHaveTextContent('700000000001');
    expect(within(items[0]!).getByText('Verifying')).toBeInTheDocument();
    expect(within(items[0]!).queryByText('Held')).not.toBeInTheDocument();
    expect(within(items[0]!).getByRole('link', { name: 'KL-261120-PAIDXX' })).toHaveAttribute('href', '/console/orders/KL-261120-PAIDXX');
    const facts = (item: HTMLElement) =>
      Object.fromEntries(within(item).getAllByRole('term').map((dt) => [dt.textContent, dt.nextElementSibling?.textContent]));
    expect(facts(items[0]!)).toMatchObject({ 'Amount asked': '₹3,500.25', 'Amount received': 'Not recorded yet' });
    expect(within(items[1]!).getByText('Held')).toBeInTheDocument();
    expect(facts(items[1]!)).toMatchObject({ 'Amount asked': '₹3,500', 'Amount received': '₹3,000', Difference: '₹500 less than asked' });
    expect(within(items[2]!).getByText('Refund due')).toBeInTheDocument();
    expect(facts(items[2]!)).toMatchObject({ 'Amount asked': '₹500', 'Amount received': '₹500', 'To refund to the borrower': '₹200' });
  });

  it('groups the queue by status, each counted by the server, and says when a group is empty', async () => {
    const all = [...PAYMENTS, REFUND_DUE];
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [QUEUE]: (call) =>
          ok(call.query.get('q') ? [] : all.filter((item) => !call.query.get('status') || item.payment.status === call.query.get('status'))),
        [COUNTS]: () => ok(counts({ 'IN:verifying': 1, 'IN:held': 1, 'IN:refund_due': 1, 'ID:held': 4 })),
      },
    });
    renderConsole('/console/repayments?market=IN');
    const user = userEvent.setup();
    const groups = await screen.findByRole('navigation', { name: 'Payment status' });
    expect(await within(groups).findByRole('link', { name: 'All (3)' })).toBeInTheDocument();
    expect(within(groups).getAllByRole('link').map((a) => a.textContent)).toEqual(['All (3)', 'To verify (1)', 'Held (1)', 'Refunds due (1)']);
    await user.click(within(groups).getByRole('link', { name: 'Refunds due (1)' }));
    const items = await payments();
    expect(items).toHaveLength(1);
    expect(items[0]).toHaveTextContent('KPPAY3000000');
    expect(within(groups).getByRole('link', { name: 'Refunds due (1)' })).toHaveAttribute('aria-current', 'page');
    expect(api.callsTo('GET', '/api/v1/console/payments').at(-1)!.query.get('status')).toBe('refund_due');
    // Every market the operator sees, counted together.
    await user.click(within(screen.getByRole('navigation', { name: 'Market' })).getByRole('link', { name: 'All markets' }));
    expect(await within(groups).findByRole('link', { name: 'Held (5)' })).toBeInTheDocument();
    // A search is not counted by the server: its tabs give no number.
    await user.type(screen.getByLabelText('UTR, reference or order number'), 'NOTHING');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    expect(await within(groups).findByRole('link', { name: 'Held' })).toBeInTheDocument();
    expect(await screen.findByText('No payments in this group.')).toBeInTheDocument();
  });

  it('confirms with the amount received, typed by finance (never prefilled) and sent in minor units, after a step that states it', async () => {
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
    expect(field).toHaveValue('');
    expect(within(first).getByText(/₹3,500.25 was asked/)).toBeInTheDocument();
    await user.click(within(first).getByRole('button', { name: 'Continue' }));
    expect(within(first).getByText('Enter the amount received, e.g. 3500 or 3500.25.')).toBeInTheDocument();
    await user.type(field, '35x');
    await user.click(within(first).getByRole('button', { name: 'Continue' }));
    expect(within(first).getByText('Enter the amount received, e.g. 3500 or 3500.25.')).toBeInTheDocument();
    await user.clear(field);
    await user.type(field, '3,500.25');
    await user.click(within(first).getByRole('button', { name: 'Continue' }));
    expect(within(first).getByText('Credit ₹3,500.25 received for KPPAY1000000 to the loan?')).toBeInTheDocument();
    await user.click(within(first).getByRole('button', { name: 'Confirm ₹3,500.25' }));
    const notice = await screen.findByText('KPPAY1000000: ₹3,500.25 credited to the loan.');
    expect(api.callsTo('POST', '/api/v1/console/payments/pay1/confirm').map((c) => c.body)).toEqual([{ amount: 350025 }]);
    expect(await screen.findByRole('list', { name: '1 payment waiting for finance, oldest first' })).toBeInTheDocument();
    // The card and its button went: the focus is on the notice saying what happened, not lost to the page's start.
    expect(notice).toHaveFocus();
  });

  it('holds the money of a payment it had rejected, found by its UTR, once finance types what arrived', async () => {
    const rejected = { ...PAYMENTS[0]!, payment: { ...PAYMENTS[0]!.payment, status: 'rejected' as const, reason: 'No such credit on the statement.' } };
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [QUEUE]: () => ok([rejected]),
        'POST /api/v1/console/payments/pay1/confirm': () =>
          ok({ payment: { ...rejected.payment, status: 'held', reason: null, receivedAmount: 350025 }, orderStatus: 'disbursed', ledgerSeq: null }),
      },
    });
    renderConsole('/console/repayments?q=700000000001');
    const user = userEvent.setup();
    const item = (await payments())[0]!;
    expect(within(item).getByText('Rejected')).toBeInTheDocument();
    expect(within(item).getByText(/^Rejected. The borrower was told: “No such credit on the statement.” If the bank statement shows/)).toBeInTheDocument();
    expect(within(item).queryByRole('button', { name: 'Reject' })).not.toBeInTheDocument();
    await user.click(within(item).getByRole('button', { name: 'Money arrived after all…' }));
    await user.type(within(item).getByLabelText('Amount received (INR)'), '3500.25');
    await user.click(within(item).getByRole('button', { name: 'Continue' }));
    expect(
      within(item).getByText('Hold ₹3,500.25 received for KPPAY1000000, which was rejected? Nothing is credited yet: you then credit it or refund it to the borrower.'),
    ).toBeInTheDocument();
    await user.click(within(item).getByRole('button', { name: 'Confirm ₹3,500.25' }));
    expect(await screen.findByText('KPPAY1000000: ₹3,500.25 held for review, nothing credited.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/payments/pay1/confirm').map((c) => c.body)).toEqual([{ amount: 350025 }]);
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
    await user.click(within(second!).getByRole('button', { name: 'Continue' }));
    expect(within(second!).getByText('Give the reason the borrower will see.')).toBeInTheDocument();
    await user.type(within(second!).getByLabelText('Reason (the borrower sees it)'), '  No credit.  ');
    await user.click(within(second!).getByRole('button', { name: 'Continue' }));
    await user.click(within(second!).getByRole('button', { name: 'Yes, reject KPPAY2000000' }));
    expect(await screen.findByText('KPPAY2000000 rejected.')).toHaveFocus();
    expect(api.callsTo('POST', '/api/v1/console/payments/pay2/reject').map((c) => c.body)).toEqual([{ reason: 'No credit.' }]);
  });

  it('asks before rejecting a reported UTR, naming the payment, its order, amount and UTR and the reason; Back sends nothing', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [QUEUE]: () => ok(PAYMENTS),
        'POST /api/v1/console/payments/pay1/reject': () => ok({ ...PAYMENTS[0]!.payment, status: 'rejected', reason: 'No such credit.' }),
      },
    });
    renderConsole('/console/repayments');
    const user = userEvent.setup();
    const first = (await payments())[0]!;
    await user.click(within(first).getByRole('button', { name: 'Reject' }));
    await user.type(within(first).getByLabelText('Reason (the borrower sees it)'), 'No such credit.');
    await user.click(within(first).getByRole('button', { name: 'Continue' }));
    const step = within(first).getByRole('group', { name: /^Reject payment KPPAY1000000/ });
    expect(step).toHaveTextContent(
      'Reject payment KPPAY1000000 of ₹3,500.25 for KL-261120-PAIDXX (UTR 700000000001)? Nothing is credited to the loan, and the borrower is told it was rejected.',
    );
    expect(step).toHaveTextContent('The borrower will read: “No such credit.”');
    await user.click(within(step).getByRole('button', { name: 'Back' }));
    expect(within(first).getByLabelText('Reason (the borrower sees it)')).toHaveValue('No such credit.');
    await user.click(within(first).getByRole('button', { name: 'Cancel' }));
    expect(within(first).getByRole('button', { name: 'Reject' })).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/payments/pay1/reject')).toHaveLength(0);
    await user.click(within(first).getByRole('button', { name: 'Reject' }));
    await user.type(within(first).getByLabelText('Reason (the borrower sees it)'), 'No such credit.');
    await user.click(within(first).getByRole('button', { name: 'Continue' }));
    await user.click(within(first).getByRole('button', { name: 'Yes, reject KPPAY1000000' }));
    expect(await screen.findByText('KPPAY1000000 rejected.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/payments/pay1/reject').map((c) => c.body)).toEqual([{ reason: 'No such credit.' }]);
  });

  it('offers no Reject and no other amount for money a provider reported (a virtual account held): it is credited or refunded as reported', async () => {
    const va = { ...PAYMENTS[1]!, payment: { ...PAYMENTS[1]!.payment, method: 'virtual_account', utr: null } };
    fakeConsoleApi({ operator: OPERATORS.finance, signedIn: true, handlers: { [QUEUE]: () => ok([va]) } });
    renderConsole('/console/repayments');
    const [held] = await payments();
    expect(within(held!).getByRole('button', { name: 'Credit ₹3,000 received' })).toBeInTheDocument();
    expect(within(held!).getByRole('button', { name: /^Refund/ })).toBeInTheDocument();
    expect(within(held!).queryByRole('button', { name: 'Reject' })).not.toBeInTheDocument();
    expect(within(held!).queryByRole('button', { name: 'Another amount…' })).not.toBeInTheDocument();
  });

  it('offers only Reject for money a provider reported in another currency, shown in that currency', async () => {
    const usd = { ...PAYMENTS[1]!, payment: { ...PAYMENTS[1]!.payment, receivedAmount: 1200, receivedCurrency: 'USD' } };
    fakeConsoleApi({ operator: OPERATORS.finance, signedIn: true, handlers: { [QUEUE]: () => ok([usd]) } });
    renderConsole('/console/repayments');
    const [held] = await payments();
    expect(within(held!).getByText('USD 12.00')).toBeInTheDocument();
    expect(within(held!).getByText(/^This money came in USD, not in the loan's currency/)).toBeInTheDocument();
    expect(within(held!).queryByRole('button', { name: /^Credit/ })).not.toBeInTheDocument();
    expect(within(held!).queryByRole('button', { name: /^Refund/ })).not.toBeInTheDocument();
    expect(within(held!).queryByRole('button', { name: 'Another amount…' })).not.toBeInTheDocument();
    expect(within(held!).getByRole('button', { name: 'Reject' })).toBeInTheDocument();
  });

  it('credits a held amount as received after restating the money move, through /resolve', async () => {
    let done = false;
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [QUEUE]: () => ok(done ? PAYMENTS.slice(0, 1) : PAYMENTS),
        'POST /api/v1/console/payments/pay2/resolve': () => {
          done = true;
          return ok({ payment: { ...PAYMENTS[1]!.payment, status: 'confirmed' }, orderStatus: 'disbursed', ledgerSeq: 9 });
        },
      },
    });
    renderConsole('/console/repayments');
    const user = userEvent.setup();
    const held = (await payments())[1]!;
    expect(within(held).queryByRole('button', { name: 'Confirm' })).not.toBeInTheDocument();
    // A UPI payment held by finance's own amount can be rejected; a virtual account's, reported by its provider, not.
    expect(within(held).getByRole('button', { name: 'Reject' })).toBeInTheDocument();
    expect(within(held).getByRole('button', { name: 'Another amount…' })).toBeInTheDocument();
    await user.click(within(held).getByRole('button', { name: 'Credit ₹3,000 received' }));
    expect(api.callsTo('POST', '/api/v1/console/payments/pay2/resolve')).toHaveLength(0);
    expect(within(held).getByText(/^Credit the ₹3,000 received for KPPAY2000000 to the loan\? ₹3,500 was asked: a part payment/)).toBeInTheDocument();
    await user.click(within(held).getByRole('button', { name: 'Back' }));
    await user.click(within(held).getByRole('button', { name: 'Credit ₹3,000 received' }));
    await user.click(within(held).getByRole('button', { name: 'Credit ₹3,000' }));
    expect(await screen.findByText('KPPAY2000000: ₹3,000 credited to the loan.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/payments/pay2/resolve').map((c) => c.body)).toEqual([{ action: 'credit' }]);
    expect(await screen.findByRole('list', { name: '1 payment waiting for finance, oldest first' })).toBeInTheDocument();
  });

  it('owes a held amount back to the borrower after restating it; the payment then waits for its refund', async () => {
    let done = false;
    const refundDue = { ...PAYMENTS[1]!, payment: { ...PAYMENTS[1]!.payment, status: 'refund_due', refundAmount: 300000 } };
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [QUEUE]: () => ok(done ? [PAYMENTS[0], refundDue] : PAYMENTS),
        'POST /api/v1/console/payments/pay2/resolve': () => {
          done = true;
          return ok({ payment: refundDue.payment, orderStatus: 'disbursed', ledgerSeq: null });
        },
      },
    });
    renderConsole('/console/repayments');
    const user = userEvent.setup();
    const held = (await payments())[1]!;
    await user.click(within(held).getByRole('button', { name: 'Refund ₹3,000 to the borrower' }));
    expect(within(held).getByText(/^Owe all ₹3,000 received for KPPAY2000000 back to the borrower\? Nothing is credited/)).toBeInTheDocument();
    await user.click(within(held).getByRole('button', { name: 'Refund ₹3,000' }));
    expect(await screen.findByText('KPPAY2000000: ₹3,000 to be refunded to the borrower. Record the transfer once sent.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/payments/pay2/resolve').map((c) => c.body)).toEqual([{ action: 'refund' }]);
    const after = (await payments())[1]!;
    expect(await within(after).findByText('Refund due')).toBeInTheDocument();
    expect(within(after).getByRole('button', { name: 'I am sending it' })).toBeInTheDocument();
    expect(within(after).queryByRole('button', { name: 'Record refund' })).not.toBeInTheDocument();
  });

  it('offers to record a refund only once the operator said they are sending it', async () => {
    let sending: string | null = null;
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [QUEUE]: () => ok([{ ...REFUND_DUE, refundSendingBy: sending, refundSendingSince: sending ? APPROVED_AT : null }]),
        'POST /api/v1/console/payments/pay3/refund/claim': () => {
          sending = 'fay';
          return ok(REFUND_DUE.payment);
        },
      },
    });
    renderConsole('/console/repayments');
    const user = userEvent.setup();
    let item = (await payments())[0]!;
    expect(within(item).getByText(/₹200 is owed back to the borrower. Say you are sending it first/)).toBeInTheDocument();
    expect(within(item).queryByRole('button', { name: 'Record refund' })).not.toBeInTheDocument();
    await user.click(within(item).getByRole('button', { name: 'I am sending it' }));
    item = (await payments())[0]!;
    expect(await within(item).findByRole('button', { name: 'Record refund' })).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/payments/pay3/refund/claim').map((c) => c.body)).toEqual([{ takeOver: false }]);
  });

  it('shows who is sending a refund, and takes it over only after saying it may pay the borrower twice', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [QUEUE]: () => ok([{ ...REFUND_DUE, refundSendingBy: 'asha', refundSendingSince: APPROVED_AT }]),
        'POST /api/v1/console/payments/pay3/refund/claim': () => ok(REFUND_DUE.payment),
      },
    });
    renderConsole('/console/repayments');
    const user = userEvent.setup();
    const item = (await payments())[0]!;
    expect(within(item).getByText(/^asha is sending these ₹200 \(since .+\) and records the transfer once it is sent. Do not send it too.$/)).toBeInTheDocument();
    expect(within(item).queryByRole('button', { name: 'Record refund' })).not.toBeInTheDocument();
    expect(within(item).queryByRole('button', { name: 'I am sending it' })).not.toBeInTheDocument();
    await user.click(within(item).getByRole('button', { name: 'Take over…' }));
    expect(
      within(item).getByText('Take this refund over from asha? Only if you know asha did not send it: otherwise the borrower is paid twice.'),
    ).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/payments/pay3/refund/claim')).toHaveLength(0);
    await user.click(within(item).getByRole('button', { name: 'Take over' }));
    expect(api.callsTo('POST', '/api/v1/console/payments/pay3/refund/claim').map((c) => c.body)).toEqual([{ takeOver: true }]);
  });

  it('records a refund with the bank reference: checked as the server does, restated, server field errors at the field', async () => {
    let done = false;
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [QUEUE]: () => ok(done ? [] : [{ ...REFUND_DUE, refundSendingBy: 'fay', refundSendingSince: APPROVED_AT }]),
        'POST /api/v1/console/payments/pay3/refund': (call) => {
          if ((call.body as { bankReference: string }).bankReference === 'USED-1') {
            return refusal(422, 'validation_failed', 'Invalid.', { fields: { bankReference: 'This reference is not accepted.' } });
          }
          done = true;
          return ok({ ...REFUND_DUE.payment, status: 'refunded', refundReference: 'N2612345' });
        },
      },
    });
    renderConsole('/console/repayments');
    const user = userEvent.setup();
    const item = (await payments())[0]!;
    expect(within(item).getByText(/^You are sending these ₹200 \(since .+\): send them to the borrower's bank account/)).toBeInTheDocument();
    expect(within(item).queryByRole('button', { name: 'Confirm' })).not.toBeInTheDocument();
    await user.click(within(item).getByRole('button', { name: 'Record refund' }));
    const field = within(item).getByLabelText("Bank reference of the refund's transfer");
    await user.click(within(item).getByRole('button', { name: 'Continue' }));
    expect(within(item).getByText('Enter the bank reference of the refund\'s transfer.')).toBeInTheDocument();
    await user.type(field, 'ab');
    await user.click(within(item).getByRole('button', { name: 'Continue' }));
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(within(item).getByText('4 to 64 letters, digits and - / _ . only.')).toBeInTheDocument();
    await user.clear(field);
    await user.type(field, 'USED-1');
    await user.click(within(item).getByRole('button', { name: 'Continue' }));
    expect(within(item).getByText('Record that ₹200 for KPPAY3000000 was sent back to the borrower\'s bank account with reference USED-1?')).toBeInTheDocument();
    await user.click(within(item).getByRole('button', { name: 'Record refund of ₹200' }));
    expect(await within(item).findByText('This reference is not accepted.')).toBeInTheDocument();
    expect(within(item).getByLabelText(/Bank reference/)).toHaveAttribute('aria-invalid', 'true');
    await user.clear(within(item).getByLabelText(/Bank reference/));
    await user.type(within(item).getByLabelText(/Bank reference/), ' N2612345 ');
    await user.click(within(item).getByRole('button', { name: 'Continue' }));
    await user.click(within(item).getByRole('button', { name: 'Record refund of ₹200' }));
    expect(await screen.findByText('KPPAY3000000: refund of ₹200 recorded with bank reference N2612345.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/payments/pay3/refund').map((c) => c.body)).toEqual([
      { bankReference: 'USED-1' },
      { bankReference: 'N2612345' },
    ]);
  });

  it('says so when a refund was recorded by someone else first (409)', async () => {
    fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [QUEUE]: () => ok([{ ...REFUND_DUE, refundSendingBy: 'fay', refundSendingSince: APPROVED_AT }]),
        'POST /api/v1/console/payments/pay3/refund': () => refusal(409, 'payment_not_open', 'Not open.'),
      },
    });
    renderConsole('/console/repayments');
    const user = userEvent.setup();
    const item = (await payments())[0]!;
    await user.click(within(item).getByRole('button', { name: 'Record refund' }));
    await user.type(within(item).getByLabelText(/Bank reference/), 'N2612345');
    await user.click(within(item).getByRole('button', { name: 'Continue' }));
    await user.click(within(item).getByRole('button', { name: 'Record refund of ₹200' }));
    // Said above the queue, not on the card: the queue is read again, and the card may be gone.
    expect(await screen.findByRole('alert')).toHaveTextContent('This payment no longer waits for this step: someone decided it already.');
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
    await user.type(within(first).getByLabelText('Amount received (INR)'), '3500.25');
    await user.click(within(first).getByRole('button', { name: 'Continue' }));
    empty = true;
    await user.click(within(first).getByRole('button', { name: 'Confirm ₹3,500.25' }));
    expect(await screen.findByText('No payments are waiting for verification.')).toBeInTheDocument();
  });

  it('asks the server for the status of the tab, so held money is never cut off by the list’s cap of 200', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        // The server lists at most 200, oldest first: 200 UTRs to verify fill the whole list before any held payment.
        [QUEUE]: (call) => ok(call.query.get('status') === 'held' ? [PAYMENTS[1]] : FULL_QUEUE),
        [COUNTS]: () => ok(counts({ 'IN:verifying': 250, 'IN:held': 1 })),
      },
    });
    renderConsole('/console/repayments?status=held');
    const items = await payments();
    expect(items).toHaveLength(1);
    expect(items[0]).toHaveTextContent('KPPAY2000000');
    expect(within(items[0]!).getByText('Held')).toBeInTheDocument();
    expect(api.callsTo('GET', '/api/v1/console/payments').map((c) => c.query.get('status'))).toEqual(['held']);
    // The tabs count from the server's counts, not from the list on show.
    const groups = screen.getByRole('navigation', { name: 'Payment status' });
    expect(within(groups).getAllByRole('link').map((a) => a.textContent)).toEqual(['All (251)', 'To verify (250)', 'Held (1)', 'Refunds due (0)']);
    expect(screen.queryByText(/Showing the oldest 200/)).not.toBeInTheDocument();

    await userEvent.setup().click(within(groups).getByRole('link', { name: 'To verify (250)' }));
    expect(await screen.findByRole('list', { name: '200 payments waiting for finance, oldest first' })).toBeInTheDocument();
    expect(api.callsTo('GET', '/api/v1/console/payments').at(-1)!.query.get('status')).toBe('verifying');
    expect(screen.getByText('Showing the oldest 200 only: search for a UTR, reference or order number, or choose a market or a status.')).toBeInTheDocument();
  });

  it('reads rupiah as a bank statement writes them (dots group thousands, whole rupiah) and sends minor units', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [QUEUE]: () => ok([IDR_ITEM]),
        'POST /api/v1/console/payments/pay1/confirm': () => ok({ payment: { ...IDR_ITEM.payment, status: 'confirmed' }, orderStatus: 'disbursed', ledgerSeq: 8 }),
      },
    });
    renderConsole('/console/repayments');
    const user = userEvent.setup();
    const item = (await payments())[0]!;
    await user.click(within(item).getByRole('button', { name: 'Confirm' }));
    const field = within(item).getByLabelText('Amount received (IDR)');
    await user.type(field, '1.000.000');
    await user.click(within(item).getByRole('button', { name: 'Continue' }));
    expect(within(item).getByText(/^Credit Rp\s1\.000\.000 received for KPPAY1000000 to the loan\?$/)).toBeInTheDocument();
    await user.click(within(item).getByRole('button', { name: 'Back' }));
    expect(within(item).getByText(/^As the bank statement shows it, in whole rupiah \(e\.g\. 1\.000\.000\); Rp\s1\.000\.000 was asked\.$/)).toBeInTheDocument();
    // Sen are refused (whole rupiah only), in words that give a rupiah example.
    await user.clear(within(item).getByLabelText('Amount received (IDR)'));
    await user.type(within(item).getByLabelText('Amount received (IDR)'), '1.000.000,50');
    await user.click(within(item).getByRole('button', { name: 'Continue' }));
    expect(within(item).getByText('Enter the amount received in whole rupiah, e.g. 1.000.000.')).toBeInTheDocument();
    await user.clear(within(item).getByLabelText('Amount received (IDR)'));
    await user.type(within(item).getByLabelText('Amount received (IDR)'), 'Rp 1.000.000');
    await user.click(within(item).getByRole('button', { name: 'Continue' }));
    await user.click(within(item).getByRole('button', { name: /^Confirm Rp\s1\.000\.000$/ }));
    expect(await screen.findByText(/^KPPAY1000000: Rp\s1\.000\.000 credited to the loan\.$/)).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/payments/pay1/confirm').map((c) => c.body)).toEqual([{ amount: 100_000_000 }]);
  });

  it('keeps saying someone else decided a payment first (409) once the queue, read again, no longer holds it', async () => {
    let gone = false;
    fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [QUEUE]: () => ok(gone ? [] : PAYMENTS),
        'POST /api/v1/console/payments/pay1/confirm': () => {
          gone = true;
          return refusal(409, 'payment_not_open', 'Not open.');
        },
      },
    });
    renderConsole('/console/repayments');
    const user = userEvent.setup();
    const first = (await payments())[0]!;
    await user.click(within(first).getByRole('button', { name: 'Confirm' }));
    await user.type(within(first).getByLabelText('Amount received (INR)'), '3500.25');
    await user.click(within(first).getByRole('button', { name: 'Continue' }));
    await user.click(within(first).getByRole('button', { name: 'Confirm ₹3,500.25' }));
    expect(await screen.findByText('No payments are waiting for verification.')).toBeInTheDocument();
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('This payment no longer waits for this step: someone decided it already.');
    expect(alert).toHaveFocus();
    // Another market's queue starts without it.
    await user.click(screen.getByRole('link', { name: 'Indonesia' }));
    await waitFor(() => expect(screen.queryByText('This payment no longer waits for this step: someone decided it already.')).not.toBeInTheDocument());
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
