import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { deferred, fakeConsoleApi, ok, OPERATORS, refusal, renderConsole } from '@/test/render-console';
import { PAYOUTS_IN } from './finance.test-data';

const LIST = 'GET /api/v1/console/payouts';

describe('payouts', () => {
  it('shows a loading state, then the approved orders longest waiting first with the net to pay out', async () => {
    const answer = deferred();
    fakeConsoleApi({ operator: OPERATORS.finance, signedIn: true, handlers: { [LIST]: () => answer.promise } });
    renderConsole('/console/payouts');
    expect(await screen.findByText('Loading approved orders…')).toHaveAttribute('role', 'status');
    answer.resolve(ok(PAYOUTS_IN));
    const table = await screen.findByRole('table', { name: '2 approved orders waiting for payout in India, longest waiting first' });
    const rows = within(table).getAllByRole('row').slice(1);
    const cells = rows.map((row) => within(row).getAllByRole('cell').map((cell) => cell.textContent));
    expect(cells[0]!.slice(0, 5)).toEqual(['KL-261122-AAAAAA', '3 h 2 min', 'Flexi EMI6 months', '₹20,000', '₹19,400']);
    for (const part of ['Asha Verma', 'HDFC Bank', '501001234567', 'HDFC0001234']) expect(cells[0]![5]).toContain(part);
    expect(cells[1]![5]).toBe('No bank account on file');
    expect(cells[1]![1]).toBe('1 min');
    expect(screen.getByRole('link', { name: 'Payouts' })).toHaveAttribute('aria-current', 'page');
  });

  it('checks the bank reference as the server does, states the amount, then pays out and reads the list again', async () => {
    let paid = false;
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [LIST]: () => ok(paid ? PAYOUTS_IN.slice(1) : PAYOUTS_IN),
        'POST /api/v1/console/orders/KL-261122-AAAAAA/disburse': () => {
          paid = true;
          return ok({ orderNo: 'KL-261122-AAAAAA', status: 'disbursed', payoutDate: '2026-11-25', amount: 1940000, provider: 'manual', bankReference: 'HDFCN5202611' });
        },
      },
    });
    renderConsole('/console/payouts');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Pay out KL-261122-AAAAAA' }));
    const field = screen.getByLabelText('Bank reference of the transfer');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByText('Enter the bank reference of the transfer.')).toBeInTheDocument();
    for (const bad of ['AB1', 'HDFC 123', 'X'.repeat(65), 'ref#123']) {
      await user.clear(field);
      await user.type(field, bad);
      await user.click(screen.getByRole('button', { name: 'Continue' }));
      expect(screen.getByText('Use 4 to 64 letters, digits, -, /, _ or . only.')).toBeInTheDocument();
    }
    expect(api.callsTo('POST', '/api/v1/console/orders/KL-261122-AAAAAA/disburse')).toHaveLength(0);
    await user.clear(field);
    await user.type(field, '  HDFCN5202611 ');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByText(/Record the payout of ₹19,400 for KL-261122-AAAAAA with bank reference HDFCN5202611\?/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Pay out ₹19,400' }));
    expect(await screen.findByText(/KL-261122-AAAAAA paid out: ₹19,400, bank reference HDFCN5202611, loan start 25 Nov 2026/)).toBeInTheDocument();
    const calls = api.callsTo('POST', '/api/v1/console/orders/KL-261122-AAAAAA/disburse');
    expect(calls.map((c) => c.body)).toEqual([{ bankReference: 'HDFCN5202611' }]);
    expect(await screen.findByRole('table', { name: /^1 approved order waiting/ })).toBeInTheDocument();
  });

  it('withdraws an order the bank will not pay, with a reason the borrower reads, and reads the list again', async () => {
    let withdrawn = false;
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [LIST]: () => ok(withdrawn ? PAYOUTS_IN.slice(1) : PAYOUTS_IN),
        'POST /api/v1/console/orders/KL-261122-AAAAAA/withdraw': () => {
          withdrawn = true;
          return ok({ orderNo: 'KL-261122-AAAAAA', status: 'cancelled' });
        },
      },
    });
    renderConsole('/console/payouts');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Withdraw KL-261122-AAAAAA: the bank will not pay it' }));
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(screen.getByText('Say why it cannot be paid out: the borrower reads it.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/orders/KL-261122-AAAAAA/withdraw')).toHaveLength(0);
    await user.type(screen.getByLabelText('Why it cannot be paid out (the borrower reads this)'), ' The account is closed. ');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await user.click(screen.getByRole('button', { name: 'Yes, withdraw KL-261122-AAAAAA' }));
    const notice = await screen.findByText(/KL-261122-AAAAAA is withdrawn: its borrower reads why/);
    // Its row goes: the focus goes to the notice, not back to the page's start.
    expect(notice).toHaveFocus();
    expect(api.callsTo('POST', '/api/v1/console/orders/KL-261122-AAAAAA/withdraw').map((c) => c.body)).toEqual([{ reason: 'The account is closed.' }]);
    expect(await screen.findByRole('table', { name: /^1 approved order waiting/ })).toBeInTheDocument();
  });

  it('asks before withdrawing, restating the order, its amount and the reason; Back sends nothing', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [LIST]: () => ok(PAYOUTS_IN),
        'POST /api/v1/console/orders/KL-261122-AAAAAA/withdraw': () => ok({ orderNo: 'KL-261122-AAAAAA', status: 'cancelled' }),
      },
    });
    renderConsole('/console/payouts');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Withdraw KL-261122-AAAAAA: the bank will not pay it' }));
    await user.type(screen.getByLabelText('Why it cannot be paid out (the borrower reads this)'), 'The account is closed.');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    const step = screen.getByRole('group', { name: /^Withdraw KL-261122-AAAAAA\?/ });
    expect(step).toHaveTextContent('Withdraw KL-261122-AAAAAA? Its loan of ₹20,000 is cancelled and nothing is paid out. This cannot be undone.');
    expect(step).toHaveTextContent('The borrower will read: “The account is closed.”');
    await user.click(within(step).getByRole('button', { name: 'Back' }));
    expect(screen.getByLabelText('Why it cannot be paid out (the borrower reads this)')).toHaveValue('The account is closed.');
    expect(api.callsTo('POST', '/api/v1/console/orders/KL-261122-AAAAAA/withdraw')).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Back' }));
    expect(screen.getByRole('button', { name: 'Withdraw KL-261122-AAAAAA: the bank will not pay it' })).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/orders/KL-261122-AAAAAA/withdraw')).toHaveLength(0);
  });

  it('keeps saying, above the list and naming the order, that a withdrawal was refused (409) once its row changed', async () => {
    let inFile = false;
    fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [LIST]: () => ok(inFile ? [{ ...PAYOUTS_IN[0]!, inBankFile: { sentAt: Date.parse('2026-11-25T04:00:00Z'), sentByUsername: 'fin2' } }, PAYOUTS_IN[1]] : PAYOUTS_IN),
        'POST /api/v1/console/orders/KL-261122-AAAAAA/withdraw': () => {
          inFile = true;
          return refusal(409, 'payout_sent', 'The money may be on its way.');
        },
      },
    });
    renderConsole('/console/payouts');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Withdraw KL-261122-AAAAAA: the bank will not pay it' }));
    await user.type(screen.getByLabelText('Why it cannot be paid out (the borrower reads this)'), 'Closed.');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await user.click(screen.getByRole('button', { name: 'Yes, withdraw KL-261122-AAAAAA' }));
    // The list read again has the order in a bank file: its row offers no withdrawal, and the notice stays.
    expect(await screen.findByText(/In the bank file downloaded by fin2/)).toBeInTheDocument();
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent(
      "KL-261122-AAAAAA was not withdrawn: it is in a bank file or has a payout recorded, so its money may be on its way. Wait for the bank's result, or put it back if the file was never sent.",
    );
    expect(alert).toHaveFocus();
  });

  it('refuses a payout by hand of an order another operator put in a bank file meanwhile, in words, and offers none then', async () => {
    let inFile = false;
    fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [LIST]: () =>
          ok(inFile ? [{ ...PAYOUTS_IN[0], inBankFile: { sentAt: Date.parse('2026-11-25T04:00:00Z'), sentByUsername: 'fin2' } }, PAYOUTS_IN[1]] : PAYOUTS_IN),
        'POST /api/v1/console/orders/KL-261122-AAAAAA/disburse': () => {
          inFile = true;
          return refusal(409, 'payout_sent', 'Your money is already on its way to your bank account.');
        },
      },
    });
    renderConsole('/console/payouts');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Pay out KL-261122-AAAAAA' }));
    await user.type(screen.getByLabelText('Bank reference of the transfer'), 'HDFCN5202611');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await user.click(screen.getByRole('button', { name: 'Pay out ₹19,400' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(/so its money may be on its way/);
    expect(screen.queryByText(/Your money is already/)).not.toBeInTheDocument();
    expect(await screen.findByText(/In the bank file downloaded by fin2/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('button', { name: 'Pay out KL-261122-AAAAAA' })).not.toBeInTheDocument();
  });

  it('shows the server’s refusal of the reference on the field, and a conflict in words', async () => {
    let answer = refusal(422, 'validation_failed', 'Check the fields.', { fields: { bankReference: 'Not a reference we accept.' } });
    fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: { [LIST]: () => ok(PAYOUTS_IN), 'POST /api/v1/console/orders/KL-261122-AAAAAA/disburse': () => answer },
    });
    renderConsole('/console/payouts');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Pay out KL-261122-AAAAAA' }));
    await user.type(screen.getByLabelText('Bank reference of the transfer'), 'HDFCN5202611');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await user.click(screen.getByRole('button', { name: 'Pay out ₹19,400' }));
    expect(await screen.findByText('Not a reference we accept.')).toBeInTheDocument();
    answer = refusal(409, 'invalid_transition', 'Not allowed now.');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await user.click(screen.getByRole('button', { name: 'Pay out ₹19,400' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('KL-261122-AAAAAA is no longer waiting for payout');
  });

  it('keeps saying an order is no longer waiting for payout (409) once the list, read again, no longer holds it', async () => {
    let gone = false;
    fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [LIST]: () => ok(gone ? PAYOUTS_IN.slice(1) : PAYOUTS_IN),
        'POST /api/v1/console/orders/KL-261122-AAAAAA/disburse': () => {
          gone = true;
          return refusal(409, 'invalid_transition', 'Not allowed now.');
        },
      },
    });
    renderConsole('/console/payouts');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Pay out KL-261122-AAAAAA' }));
    await user.type(screen.getByLabelText('Bank reference of the transfer'), 'HDFCN5202611');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await user.click(screen.getByRole('button', { name: 'Pay out ₹19,400' }));
    expect(await screen.findByRole('table', { name: /^1 approved order waiting/ })).toBeInTheDocument();
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent('KL-261122-AAAAAA is no longer waiting for payout: it was paid out or withdrawn.');
    expect(alert).toHaveFocus();
  });

  it('forgets its notices when the market changes: an amount is never restated in the other market’s money', async () => {
    let paid = false;
    fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [LIST]: (call) => ok(call.query.get('market') === 'ID' ? [] : paid ? PAYOUTS_IN.slice(1) : PAYOUTS_IN),
        'POST /api/v1/console/orders/KL-261122-AAAAAA/disburse': () => {
          paid = true;
          return ok({ orderNo: 'KL-261122-AAAAAA', status: 'disbursed', payoutDate: '2026-11-25', amount: 1940000, provider: 'manual', bankReference: 'HDFCN5202611' });
        },
      },
    });
    renderConsole('/console/payouts');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Pay out KL-261122-AAAAAA' }));
    await user.type(screen.getByLabelText('Bank reference of the transfer'), 'HDFCN5202611');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await user.click(screen.getByRole('button', { name: 'Pay out ₹19,400' }));
    expect(await screen.findByText(/^KL-261122-AAAAAA paid out: ₹19,400/)).toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: 'Indonesia' }));
    expect(await screen.findByText('No approved orders are waiting for payout in Indonesia.')).toBeInTheDocument();
    expect(screen.queryByText(/KL-261122-AAAAAA paid out/)).not.toBeInTheDocument();
    expect(screen.queryByText(/Rp\s19\.400/)).not.toBeInTheDocument();
  });

  it('says so when nothing waits, switches market, and shows a failed read with a retry', async () => {
    let fail = true;
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: { [LIST]: (call) => (call.query.get('market') === 'ID' ? (fail ? refusal(500, 'internal', 'Something went wrong on our side.') : ok([])) : ok([])) },
    });
    renderConsole('/console/payouts');
    expect(await screen.findByText('No approved orders are waiting for payout in India.')).toBeInTheDocument();
    const user = userEvent.setup();
    await user.click(screen.getByRole('link', { name: 'Indonesia' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Something went wrong on our side.');
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('No approved orders are waiting for payout in Indonesia.')).toBeInTheDocument();
    expect(new Set(api.callsTo('GET', '/api/v1/console/payouts').map((c) => c.query.get('market')))).toEqual(new Set(['IN', 'ID']));
  });

  it('reads one page at a time: a full page gets a pager, the next page is asked with page=2, its rows are numbered on', async () => {
    const full = Array.from({ length: 50 }, (_, i) => ({ ...PAYOUTS_IN[0]!, orderNo: `KL-261122-P${String(i + 1).padStart(5, '0')}` }));
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: { [LIST]: (call) => ok(call.query.get('page') === '2' ? [{ ...PAYOUTS_IN[1]!, orderNo: 'KL-261123-P00051' }] : full) },
    });
    renderConsole('/console/payouts');
    const table = await screen.findByRole('table', { name: 'Approved orders waiting for payout in India, longest waiting first · showing 1–50' });
    expect(within(table).getAllByRole('row').slice(1)).toHaveLength(50);
    const pages = screen.getByRole('navigation', { name: 'Pages' });
    expect(pages).toHaveTextContent('Page 1');
    expect(within(pages).queryByRole('link', { name: '← Previous page' })).not.toBeInTheDocument();
    const next = within(pages).getByRole('link', { name: 'Next page →' });
    expect(next).toHaveAttribute('rel', 'next');
    await userEvent.setup().click(next);
    expect(await screen.findByRole('table', { name: 'Approved orders waiting for payout in India, longest waiting first · showing 51–51' })).toBeInTheDocument();
    const second = screen.getByRole('navigation', { name: 'Pages' });
    expect(second).toHaveTextContent('Page 2');
    expect(within(second).getByRole('link', { name: '← Previous page' })).toHaveAttribute('rel', 'prev');
    expect(within(second).queryByRole('link', { name: 'Next page →' })).not.toBeInTheDocument();
    const asked = api.callsTo('GET', '/api/v1/console/payouts').map((c) => [c.query.get('market'), c.query.get('page')]);
    expect(asked).toContainEqual(['IN', null]);
    expect(asked).toContainEqual(['IN', '2']);
  });

  it('shows no pager and the whole count on a short first page, and asks for no page', async () => {
    const api = fakeConsoleApi({ operator: OPERATORS.finance, signedIn: true, handlers: { [LIST]: () => ok(PAYOUTS_IN) } });
    renderConsole('/console/payouts?market=IN');
    expect(await screen.findByRole('table', { name: '2 approved orders waiting for payout in India, longest waiting first' })).toBeInTheDocument();
    expect(screen.queryByRole('navigation', { name: 'Pages' })).not.toBeInTheDocument();
    expect(api.callsTo('GET', '/api/v1/console/payouts').map((c) => c.query.get('page'))).toEqual([null]);
  });

  it('says a page past the end is empty and links back to page 1, not that nothing waits', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: { [LIST]: (call) => ok(call.query.get('page') === '3' ? [] : PAYOUTS_IN) },
    });
    renderConsole('/console/payouts?market=IN&page=3');
    expect(await screen.findByText(/No orders on page 3: the list is shorter/)).toBeInTheDocument();
    expect(screen.queryByText(/No approved orders are waiting/)).not.toBeInTheDocument();
    await userEvent.setup().click(screen.getByRole('link', { name: 'Go to page 1' }));
    expect(await screen.findByRole('table', { name: /^2 approved orders waiting/ })).toBeInTheDocument();
    expect(api.callsTo('GET', '/api/v1/console/payouts').map((c) => c.query.get('page'))).toEqual(['3', null]);
  });

  it('is not open to a reviewer', async () => {
    fakeConsoleApi({ operator: OPERATORS.reviewer, signedIn: true });
    renderConsole('/console/payouts');
    expect(await screen.findByText('Not available to your role')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Payouts' })).not.toBeInTheDocument();
  });
});
