import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { OPERATORS, fakeConsoleApi, ok, refusal, renderConsole } from '@/test/render-console';
import { PAYOUTS_IN } from './finance.test-data';
import { consoleOrder } from './fixtures.test-data';

const LIST = 'GET /api/v1/console/payouts';
const RECORDED_AT = Date.UTC(2026, 10, 27, 5, 0);

function pending(recordedBy: string) {
  const [first, second] = PAYOUTS_IN;
  return [{ ...first!, needsApproval: true, pendingPayout: { bankReference: 'N3312600200', recordedBy, recordedByUsername: recordedBy === 'op-fin' ? 'fay' : 'maker', recordedAt: RECORDED_AT } }, second!];
}

function csv(text: string, name: string): Response {
  return new Response(text, { status: 200, headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="${name}"` } });
}

describe('payout operations', () => {
  it('copies the beneficiary’s account number, name and IFSC with labelled buttons', async () => {
    fakeConsoleApi({ operator: OPERATORS.finance, signedIn: true, handlers: { [LIST]: () => ok(PAYOUTS_IN) } });
    renderConsole('/console/payouts');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Copy Account number KL-261122-AAAAAA' }));
    expect(await navigator.clipboard.readText()).toBe('501001234567');
    expect(await screen.findByRole('button', { name: 'Copy Account number KL-261122-AAAAAA' })).toHaveTextContent('Copied');
    await user.click(screen.getByRole('button', { name: 'Copy IFSC KL-261122-AAAAAA' }));
    expect(await navigator.clipboard.readText()).toBe('HDFC0001234');
    await user.click(screen.getByRole('button', { name: 'Copy Name as on the ID KL-261122-AAAAAA' }));
    expect(await navigator.clipboard.readText()).toBe('Asha Verma');
    expect(screen.getByText('Above the approval threshold: a second finance operator approves it.')).toBeInTheDocument();
  });

  it('says a payout above the threshold is recorded, not paid, when one operator records it', async () => {
    fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [LIST]: () => ok(PAYOUTS_IN),
        'POST /api/v1/console/orders/KL-261122-AAAAAA/disburse': () =>
          ok({ orderNo: 'KL-261122-AAAAAA', status: 'approved', awaitingApproval: true, payoutDate: null, amount: 1940000, provider: null, bankReference: 'N3312600200' }),
      },
    });
    renderConsole('/console/payouts');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Pay out KL-261122-AAAAAA' }));
    await user.type(screen.getByLabelText('Bank reference of the transfer'), 'N3312600200');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    await user.click(screen.getByRole('button', { name: 'Pay out ₹19,400' }));
    expect(await screen.findByText(/KL-261122-AAAAAA: payout of ₹19,400 with bank reference N3312600200 recorded\. A second finance operator approves it/)).toBeInTheDocument();
  });

  it('marks an order in a downloaded bank file and puts it back for the next one after asking', async () => {
    const [first, second] = PAYOUTS_IN;
    const sentAt = Date.UTC(2026, 10, 27, 5, 0);
    let list: object[] = [{ ...first!, inBankFile: { sentAt, sentByUsername: 'fay' } }, { ...second!, needsApproval: true, inBankFile: { sentAt, sentByUsername: 'fay' }, pendingPayout: { bankReference: 'N3312600200', recordedBy: 'op-other', recordedByUsername: 'maker', recordedAt: RECORDED_AT } }];
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [LIST]: () => ok(list),
        'POST /api/v1/console/orders/KL-261122-AAAAAA/payout/put-back': () => {
          list = [{ ...first! }, list[1]!];
          return ok({ orderNo: 'KL-261122-AAAAAA' });
        },
      },
    });
    renderConsole('/console/payouts');
    const user = userEvent.setup();
    expect(await screen.findAllByText(/^In the bank file downloaded by fay,/)).toHaveLength(2);
    // A payout recorded for approval was sent: it is never put back.
    expect(screen.getAllByRole('button', { name: /^Put .* back for the next bank file$/ })).toHaveLength(1);
    await user.click(screen.getByRole('button', { name: 'Put KL-261122-AAAAAA back for the next bank file' }));
    expect(api.callsTo('POST', '/api/v1/console/orders/KL-261122-AAAAAA/payout/put-back')).toHaveLength(0);
    expect(screen.getByText(/^Did the bank not pay KL-261122-AAAAAA\?/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Put back for the next file' }));
    expect(api.callsTo('POST', '/api/v1/console/orders/KL-261122-AAAAAA/payout/put-back')).toHaveLength(1);
    expect(await screen.findAllByText(/^In the bank file downloaded by fay,/)).toHaveLength(1);
  });

  it('lets a second operator approve with the amount stated, and never the one who recorded it', async () => {
    let list = pending('op-other');
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [LIST]: () => ok(list),
        'POST /api/v1/console/orders/KL-261122-AAAAAA/payout/approve': () => {
          list = PAYOUTS_IN.slice(1);
          return ok({ orderNo: 'KL-261122-AAAAAA', status: 'disbursed', awaitingApproval: false, payoutDate: '2026-11-27', amount: 1940000, provider: 'manual', bankReference: 'N3312600200' });
        },
      },
    });
    renderConsole('/console/payouts');
    const user = userEvent.setup();
    expect(await screen.findByText('Awaiting approval')).toBeInTheDocument();
    expect(screen.getByText(/Recorded by maker/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Approve the payout of KL-261122-AAAAAA' }));
    expect(screen.getByText('Approve the payout of ₹19,400 for KL-261122-AAAAAA with bank reference N3312600200? The loan starts today.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Approve ₹19,400' }));
    const notice = await screen.findByText(/KL-261122-AAAAAA paid out: ₹19,400, bank reference N3312600200, loan start 27 Nov 2026/);
    expect(api.callsTo('POST', '/api/v1/console/orders/KL-261122-AAAAAA/payout/approve')).toHaveLength(1);
    // The row and its button go: the focus goes to the notice saying what happened, not to the page's start.
    expect(notice).toHaveFocus();
  });

  it('shows the maker no approve button, and a checker’s rejection needs a reason', async () => {
    fakeConsoleApi({ operator: OPERATORS.finance, signedIn: true, handlers: { [LIST]: () => ok(pending('op-fin')) } });
    const first = renderConsole('/console/payouts');
    expect(await screen.findByText('You recorded it: another finance operator approves or rejects it.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Approve the payout of KL-261122-AAAAAA' })).not.toBeInTheDocument();
    first.unmount();

    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [LIST]: () => ok(pending('op-other')),
        'POST /api/v1/console/orders/KL-261122-AAAAAA/payout/reject': () => ok({ orderNo: 'KL-261122-AAAAAA', status: 'approved' }),
      },
    });
    renderConsole('/console/payouts');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Reject the payout of KL-261122-AAAAAA' }));
    await user.click(screen.getByRole('button', { name: 'Reject the payout' }));
    expect(screen.getByText('Say why the payout is rejected.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/orders/KL-261122-AAAAAA/payout/reject')).toHaveLength(0);
    await user.type(screen.getByLabelText('Why the payout is rejected'), 'UTR not on the statement');
    await user.click(screen.getByRole('button', { name: 'Reject the payout' }));
    const notice = await screen.findByText('KL-261122-AAAAAA: the recorded payout of ₹19,400 is rejected. The order waits for payout again.');
    expect(notice).toHaveFocus();
    expect(api.callsTo('POST', '/api/v1/console/orders/KL-261122-AAAAAA/payout/reject').map((c) => c.body)).toEqual([{ reason: 'UTR not on the statement' }]);
  });

  it('keeps saying above the list, naming the order and amount, that a payout was decided first (409), until the market changes', async () => {
    let gone = false;
    fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [LIST]: (call) => ok(call.query.get('market') === 'ID' ? [] : gone ? PAYOUTS_IN.slice(1) : pending('op-other')),
        'POST /api/v1/console/orders/KL-261122-AAAAAA/payout/approve': () => {
          gone = true;
          return refusal(409, 'payout_not_awaiting', 'Not awaiting approval.');
        },
      },
    });
    renderConsole('/console/payouts');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Approve the payout of KL-261122-AAAAAA' }));
    await user.click(screen.getByRole('button', { name: 'Approve ₹19,400' }));
    // The list read again no longer holds the order (another operator approved it): the notice stays, above it.
    expect(await screen.findByRole('table', { name: /^1 approved order waiting/ })).toBeInTheDocument();
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent(
      'KL-261122-AAAAAA: the payout of ₹19,400 no longer waits for approval. Another finance operator approved or rejected it first; the list shows where it stands now.',
    );
    expect(alert).toHaveFocus();
    expect(screen.queryByText('Not awaiting approval.')).not.toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: 'Indonesia' }));
    expect(await screen.findByText('No approved orders are waiting for payout in Indonesia.')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('says a rejection refused (409) above the list in the order’s own money: rupiah on the Indonesia tab', async () => {
    const [first] = pending('op-other');
    const idr = { ...first!, currency: 'IDR', amount: 200_000_000, netDisbursed: 194_000_000 };
    let rejected = false;
    fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [LIST]: (call) => ok(call.query.get('market') !== 'ID' ? [] : [rejected ? { ...idr, pendingPayout: null } : idr]),
        'POST /api/v1/console/orders/KL-261122-AAAAAA/payout/reject': () => {
          rejected = true;
          return refusal(409, 'payout_not_awaiting', 'Not awaiting approval.');
        },
      },
    });
    renderConsole('/console/payouts?market=ID');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Reject the payout of KL-261122-AAAAAA' }));
    await user.type(screen.getByLabelText('Why the payout is rejected'), 'Wrong account.');
    await user.click(screen.getByRole('button', { name: 'Reject the payout' }));
    // Rejected by someone else first: the row, read again, waits for payout, and the notice stays above the list.
    expect(await screen.findByRole('button', { name: 'Pay out KL-261122-AAAAAA' })).toBeInTheDocument();
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent(/^KL-261122-AAAAAA: the payout of Rp\s?1\.940\.000 no longer waits for approval\./);
    expect(alert).not.toHaveTextContent('₹');
  });

  it('downloads the bank file and imports the bank’s result, answering every line', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [LIST]: () => ok(PAYOUTS_IN),
        'POST /api/v1/console/payouts/bank-file': () =>
          csv('Beneficiary Name,Beneficiary Account Number,IFSC,Amount (INR),Payment Reference,Beneficiary Bank\r\nAsha Verma,501001234567,HDFC0001234,19400.00,KL-261122-AAAAAA,HDFC Bank\r\n', 'kilat-payouts-IN-2026-11-27.csv'),
        'POST /api/v1/console/payouts/bank-result': () =>
          ok({
            market: 'IN',
            lines: [
              { line: 2, reference: 'KL-261122-AAAAAA', bankReference: 'N1', amount: 1940000, outcome: 'paid', expectedAmount: null, detail: null },
              { line: 3, reference: 'KL-261123-BBBBBB', bankReference: 'N2', amount: 100, outcome: 'amount_mismatch', expectedAmount: 588000, detail: null },
              { line: 4, reference: 'KL-000000-XXXXXX', bankReference: 'N3', amount: 100, outcome: 'unknown_reference', expectedAmount: null, detail: null },
            ],
          }),
      },
    });
    renderConsole('/console/payouts');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Download bank file' }));
    expect(await screen.findByText('kilat-payouts-IN-2026-11-27.csv saved: 1 payment.')).toBeInTheDocument();
    // A POST with the CSRF token (the fake API refuses one without): the download puts its orders in the file.
    expect(api.callsTo('POST', '/api/v1/console/payouts/bank-file')[0]!.query.get('market')).toBe('IN');

    await user.click(screen.getByRole('button', { name: 'Import bank result' }));
    expect(screen.getByText('Choose the bank’s result file.'.replace('’', "'"))).toBeInTheDocument();
    const content = 'reference,utr,status,amount\nKL-261122-AAAAAA,N1,success,19400.00\n';
    await user.upload(screen.getByLabelText('The bank’s result file (CSV)'.replace('’', "'")), new File([content], 'result.csv', { type: 'text/csv' }));
    await user.click(screen.getByRole('button', { name: 'Import bank result' }));
    const report = await screen.findByRole('table', { name: "3 lines of the bank's result file" });
    const rows = within(report).getAllByRole('row').slice(1);
    expect(rows[0]).toHaveTextContent('Paid out');
    expect(rows[1]).toHaveTextContent('Amount differs (the payout is ₹5,880)');
    expect(rows[2]).toHaveTextContent('Unknown reference');
    expect(api.callsTo('POST', '/api/v1/console/payouts/bank-result').map((c) => c.body)).toEqual([{ market: 'IN', content }]);
  });

  it('exports a month-end CSV and shows the server’s range error on the field', async () => {
    let answer: Response = refusal(422, 'validation_failed', 'Check the fields.', { fields: { to: 'Choose a range of at most 31 days, the end on or after the start.' } });
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: { [LIST]: () => ok([]), 'GET /api/v1/console/exports': () => answer },
    });
    renderConsole('/console/payouts');
    const user = userEvent.setup();
    const form = await screen.findByRole('region', { name: 'Month-end export, India' });
    await user.selectOptions(within(form).getByLabelText('What'), 'ledger');
    await user.type(within(form).getByLabelText('From'), '2026-10-01');
    await user.type(within(form).getByLabelText('To (included)'), '2026-12-01');
    await user.click(within(form).getByRole('button', { name: 'Download CSV' }));
    expect(await within(form).findByText('Choose a range of at most 31 days, the end on or after the start.')).toBeInTheDocument();
    expect(within(form).getByLabelText('To (included)')).toHaveAttribute('aria-invalid', 'true');
    answer = csv('Date,Order No\r\n2026-11-02,KL-1\r\n2026-11-03,KL-2\r\n', 'kilat-ledger-IN-2026-11-01-2026-11-30.csv');
    await user.clear(within(form).getByLabelText('To (included)'));
    await user.type(within(form).getByLabelText('To (included)'), '2026-10-31');
    await user.click(within(form).getByRole('button', { name: 'Download CSV' }));
    expect(await within(form).findByText('kilat-ledger-IN-2026-11-01-2026-11-30.csv saved: 2 rows.')).toBeInTheDocument();
    const last = api.callsTo('GET', '/api/v1/console/exports').at(-1)!;
    expect(Object.fromEntries(last.query)).toEqual({ market: 'IN', kind: 'ledger', from: '2026-10-01', to: '2026-10-31' });
  });

  it('asks for the bank file and the month-end export in the console’s language, so their refusals come in English', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [LIST]: () => ok(PAYOUTS_IN),
        'POST /api/v1/console/payouts/bank-file': () => refusal(409, 'nothing_to_pay', 'No approved order waits for a bank file.'),
        'GET /api/v1/console/exports': () => csv('Date,Order No\r\n', 'kilat-ledger-IN-2026-11-01-2026-11-30.csv'),
      },
    });
    renderConsole('/console/payouts');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Download bank file' }));
    expect(await screen.findByText('No approved order waits for a bank file.')).toBeInTheDocument();
    const form = screen.getByRole('region', { name: 'Month-end export, India' });
    await user.type(within(form).getByLabelText('From'), '2026-11-01');
    await user.type(within(form).getByLabelText('To (included)'), '2026-11-30');
    await user.click(within(form).getByRole('button', { name: 'Download CSV' }));
    expect(await within(form).findByText('kilat-ledger-IN-2026-11-01-2026-11-30.csv saved: 0 rows.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/payouts/bank-file').map((c) => c.headers['Accept-Language'])).toEqual(['en-IN']);
    expect(api.callsTo('GET', '/api/v1/console/exports').map((c) => c.headers['Accept-Language'])).toEqual(['en-IN']);
  });

  it('shows finance the beneficiary on the order with copy buttons', async () => {
    const order = {
      ...consoleOrder({ unmasked: false, status: 'approved' }),
      beneficiary: { name: 'Budi Santoso', bankCode: '567', bankName: 'Allo Bank', accountNumber: '1234567890', accountMasked: '**** **** 7890', ifsc: null },
    };
    fakeConsoleApi({ operator: OPERATORS.finance, signedIn: true, handlers: { 'GET /api/v1/console/orders/KL-261123-BBBBBB': () => ok(order) } });
    renderConsole('/console/orders/KL-261123-BBBBBB');
    const panel = await screen.findByRole('region', { name: 'Beneficiary' });
    expect(panel).toHaveTextContent('Allo Bank');
    expect(panel).not.toHaveTextContent('567Copy');
    expect(within(panel).getByText('1234567890')).toBeInTheDocument();
    expect(within(panel).getByRole('button', { name: 'Copy Bank code' })).toBeInTheDocument();
    expect(panel).toHaveTextContent('this view is recorded in the audit trail');
  });

  it('gives admins the month-end export on the dashboard, for the market on show', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.adminOnly,
      signedIn: true,
      handlers: {
        // The figures failing to load leave the export usable.
        'GET /api/v1/console/dashboard': () => refusal(500, 'internal', 'Something went wrong on our side.'),
        'GET /api/v1/console/exports': () => csv('Payout Date,Order No\r\n', 'kilat-payouts-ID-2026-11-01-2026-11-30.csv'),
      },
    });
    renderConsole('/console/dashboard?market=ID');
    const form = await screen.findByRole('region', { name: 'Month-end export, Indonesia' });
    const user = userEvent.setup();
    await user.type(within(form).getByLabelText('From'), '2026-11-01');
    await user.type(within(form).getByLabelText('To (included)'), '2026-11-30');
    await user.click(within(form).getByRole('button', { name: 'Download CSV' }));
    expect(await within(form).findByText('kilat-payouts-ID-2026-11-01-2026-11-30.csv saved: 0 rows.')).toBeInTheDocument();
    expect(api.callsTo('GET', '/api/v1/console/exports')[0]!.query.get('market')).toBe('ID');
  });
});
