import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeConsoleApi, ok, OPERATORS, refusal, renderConsole } from '@/test/render-console';
import { PAYMENTS } from './finance.test-data';

const BASE = '/api/v1/console/reconciliation';
const AT = Date.UTC(2026, 10, 27, 6, 0);

const MAPPING = {
  id: 'map1',
  name: 'HDFC current account',
  market: 'IN',
  delimiter: ',',
  skipRows: 1,
  dateColumn: 1,
  dateFormat: 'dd/mm/yyyy',
  amountColumn: null,
  creditColumn: 5,
  debitColumn: 4,
  referenceColumn: 3,
  narrationColumn: 2,
  decimalSeparator: '.',
  thousandsSeparator: ',',
  updatedAt: AT,
};

const SUMMARY = {
  importId: 'imp1',
  market: 'IN',
  mappingId: 'map1',
  mappingName: 'HDFC current account',
  fileName: 'hdfc-27-11.csv',
  fileHash: 'ab'.repeat(32),
  importedBy: 'fay',
  importedAt: AT,
  lineCount: 5,
  creditCount: 4,
  confirmedCount: 0,
};

function line(lineNo: number, kind: string, amount: number, more: Record<string, unknown> = {}) {
  return {
    lineNo,
    date: '2026-11-27',
    amount,
    credit: kind !== 'debit',
    reference: `71234567890${lineNo}`,
    narration: `UPI/PAYER ${lineNo}`,
    kind,
    utr: null,
    paymentId: null,
    paymentReference: null,
    orderNo: null,
    paymentAmount: null,
    paymentStatus: null,
    confirmedBy: null,
    confirmedAt: null,
    ...more,
  };
}

const paid = (n: number) => ({ utr: `71234567890${n}`, paymentId: `pay${n}`, paymentReference: `KPREF${n}`, orderNo: `KL-261120-ORDER${n}` });

const RESULT = {
  import: SUMMARY,
  lines: [
    line(2, 'matched', 600000, { ...paid(2), paymentAmount: 600000, paymentStatus: 'verifying' }),
    line(3, 'matched', 400000, { ...paid(3), paymentAmount: 400000, paymentStatus: 'verifying' }),
    line(4, 'mismatched', 350000, { ...paid(4), paymentAmount: 350025, paymentStatus: 'verifying' }),
    line(5, 'unmatched', 50000),
    line(6, 'debit', 1180),
  ],
  waiting: [{ paymentId: 'pay9', orderNo: 'KL-261120-WAITXX', reference: 'KPWAIT', utr: '712345678999', amount: 200000, waitingSince: AT - 3 * 3600_000 }],
  matchedCount: 2,
  matchedTotal: 1000000,
};

describe('reconciliation', () => {
  it('shows an import in sections, the amounts side by side, and confirms the matched ones after restating the total', async () => {
    let confirmed = false;
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [`GET ${BASE}/mappings`]: () => ok([MAPPING]),
        [`GET ${BASE}/imports`]: () => ok([SUMMARY]),
        [`GET ${BASE}/imports/imp1`]: () => ok(RESULT),
        [`POST ${BASE}/imports/imp1/confirm`]: () => {
          confirmed = true;
          const lines = RESULT.lines.map((l) => (l.kind === 'matched' ? { ...l, kind: 'confirmed', confirmedBy: 'fay', confirmedAt: AT } : l));
          // One of the two found its loan repaid meanwhile: its ₹3,000 is owed back, not credited.
          return ok({
            confirmedCount: 2,
            confirmedTotal: 700000,
            owedBackCount: 1,
            owedBackTotal: 300000,
            heldCount: 0,
            heldTotal: 0,
            skippedCount: 0,
            failedLines: [],
            result: { ...RESULT, lines, matchedCount: 0, matchedTotal: 0 },
          });
        },
      },
    });
    renderConsole('/console/reconciliation?import=imp1');
    const user = userEvent.setup();
    const matched = await screen.findByRole('region', { name: 'Matched: UTR and amount agree (2)' });
    expect(within(matched).getAllByRole('row')).toHaveLength(3);
    expect(within(matched).getByRole('link', { name: 'KL-261120-ORDER2' })).toBeInTheDocument();
    const mismatched = screen.getByRole('region', { name: 'Amount differs: never confirmed from here (1)' });
    const cells = within(within(mismatched).getAllByRole('row')[1]!).getAllByRole('cell').map((c) => c.textContent);
    expect(cells.slice(2, 5)).toEqual(['₹3,500', '₹3,500.25', '-₹0.25']);
    expect(screen.getByRole('region', { name: 'Statement lines with no payment (1)' })).toHaveTextContent('712345678905');
    const waiting = screen.getByRole('region', { name: 'Waiting payments with no line (1)' });
    expect(waiting).toHaveTextContent('KL-261120-WAITXX');
    expect(waiting).toHaveTextContent('₹2,000');
    expect(screen.getByText('1 debit line is not matched.')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Confirm 2 matched payments (₹10,000)' }));
    expect(screen.getByText(/Credit 2 payments totalling ₹10,000 to their loans\?/)).toBeInTheDocument();
    expect(confirmed).toBe(false);
    await user.click(screen.getByRole('button', { name: 'Confirm ₹10,000' }));
    expect(
      await screen.findByText(
        '2 payments confirmed (₹7,000 credited to loans). 1 found their loan owing less by then (repaid or paid meanwhile): ₹3,000 is owed back to the borrowers, under Refunds due on Repayments.',
      ),
    ).toBeInTheDocument();
    expect(api.callsTo('POST', `${BASE}/imports/imp1/confirm`)).toHaveLength(1);
    const done = screen.getByRole('region', { name: 'Confirmed (2)' });
    expect(done).toHaveTextContent('Confirmed here');
    expect(screen.getByText('No line is ready to confirm.')).toBeInTheDocument();
  });

  it('says which lines could not be confirmed, the others confirmed', async () => {
    fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [`GET ${BASE}/mappings`]: () => ok([MAPPING]),
        [`GET ${BASE}/imports`]: () => ok([SUMMARY]),
        [`GET ${BASE}/imports/imp1`]: () => ok(RESULT),
        [`POST ${BASE}/imports/imp1/confirm`]: () =>
          ok({
            confirmedCount: 1,
            confirmedTotal: 400000,
            owedBackCount: 0,
            owedBackTotal: 0,
            heldCount: 0,
            heldTotal: 0,
            skippedCount: 0,
            failedLines: [2],
            result: { ...RESULT, lines: RESULT.lines.map((l) => (l.lineNo === 3 ? { ...l, kind: 'confirmed' } : l)), matchedCount: 1, matchedTotal: 600000 },
          }),
      },
    });
    renderConsole('/console/reconciliation?import=imp1');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Confirm 2 matched payments (₹10,000)' }));
    await user.click(screen.getByRole('button', { name: 'Confirm ₹10,000' }));
    expect(await screen.findByText(/Line 2 could not be confirmed and is still matched: confirm again/)).toBeInTheDocument();
  });

  it('shows a credit the same statement took back among the lines not confirmed here, saying why', async () => {
    const reversed = {
      ...RESULT,
      lines: [...RESULT.lines, line(7, 'reversed', 250000, { ...paid(7), paymentAmount: 250000, paymentStatus: 'verifying' })],
    };
    fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [`GET ${BASE}/mappings`]: () => ok([MAPPING]),
        [`GET ${BASE}/imports`]: () => ok([SUMMARY]),
        [`GET ${BASE}/imports/imp1`]: () => ok(reversed),
      },
    });
    renderConsole('/console/reconciliation?import=imp1');
    const other = await screen.findByRole('region', { name: /^Other lines \(1\)/ });
    expect(other).toHaveTextContent('Taken back by a debit in this statement: not confirmed here; it waits on Repayments, under money taken back');
    expect(screen.getByRole('button', { name: 'Confirm 2 matched payments (₹10,000)' })).toBeInTheDocument();
  });

  it('reads a file with a saved layout, previews its first lines, imports it and opens the result', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [`GET ${BASE}/mappings`]: () => ok([MAPPING]),
        [`GET ${BASE}/imports`]: () => ok([]),
        [`POST ${BASE}/preview`]: (call) =>
          ok({
            rows: [['Date', 'Narration', 'Ref', 'Debit', 'Credit'], ['27/11/2026', 'UPI/X', '712345678902', '', '6,000.00']],
            lines: call.body && (call.body as { mappingId?: string }).mappingId ? [{ lineNo: 2, date: '2026-11-27', amount: 600000, credit: true, reference: '712345678902', narration: 'UPI/X', utrs: ['712345678902'] }] : [],
            problems: [],
          }),
        [`POST ${BASE}/imports`]: () => ok({ duplicate: false, result: RESULT }),
        [`GET ${BASE}/imports/imp1`]: () => ok(RESULT),
      },
    });
    renderConsole('/console/reconciliation');
    const user = userEvent.setup();
    expect(await screen.findByText('No statement imported yet.')).toBeInTheDocument();
    const content = 'Date,Narration,Ref,Debit,Credit\n27/11/2026,UPI/X,712345678902,,"6,000.00"\n';
    await user.upload(screen.getByLabelText('Statement file (CSV)'), new File([content], 'hdfc-27-11.csv', { type: 'text/csv' }));
    await user.selectOptions(await screen.findByLabelText('Bank layout'), 'map1');
    const lines = await screen.findByRole('table', { name: 'The first lines read with this layout' });
    expect(lines).toHaveTextContent('₹6,000');
    expect(screen.getByRole('table', { name: /first rows, by column number/ })).toHaveTextContent('Column 5');
    expect(api.callsTo('POST', `${BASE}/preview`).at(-1)?.body).toEqual({ content, mappingId: 'map1' });
    await user.click(screen.getByRole('button', { name: 'Import hdfc-27-11.csv' }));
    expect(await screen.findByRole('region', { name: 'Matched: UTR and amount agree (2)' })).toBeInTheDocument();
    expect(api.callsTo('POST', `${BASE}/imports`)[0]?.body).toEqual({ mappingId: 'map1', fileName: 'hdfc-27-11.csv', content });
  });

  it('shows the server’s line and column for a file it cannot read, and a new layout’s field errors at their fields', async () => {
    fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [`GET ${BASE}/mappings`]: () => ok([MAPPING]),
        [`GET ${BASE}/imports`]: () => ok([]),
        [`POST ${BASE}/preview`]: () => ok({ rows: [['h']], lines: [], problems: [{ lineNo: 3, column: 1, field: 'date', problem: 'bad_date', value: '2026-11-28' }] }),
        [`POST ${BASE}/imports`]: () =>
          refusal(422, 'validation_failed', 'Check the fields.', {
            fields: { content: 'Line 3, column 1 (date): “2026-11-28” is not a date written dd/mm/yyyy.' },
          }),
        [`POST ${BASE}/mappings`]: () => refusal(422, 'validation_failed', 'Check the fields.', { fields: { referenceColumn: 'This field is required.' } }),
      },
    });
    renderConsole('/console/reconciliation');
    const user = userEvent.setup();
    await user.upload(await screen.findByLabelText('Statement file (CSV)'), new File(['h\nx'], 'bad.csv', { type: 'text/csv' }));
    await user.selectOptions(screen.getByLabelText('Bank layout'), 'map1');
    expect(await screen.findByText(/Line 3, column 1 \(date\): not a date in the layout's format “2026-11-28”/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Import bad.csv' }));
    expect(await screen.findByText('Line 3, column 1 (date): “2026-11-28” is not a date written dd/mm/yyyy.')).toBeInTheDocument();

    await user.selectOptions(screen.getByLabelText('Bank layout'), 'New layout…');
    await user.type(screen.getByLabelText('Name (the bank and account)'), 'ICICI');
    await user.click(screen.getByRole('button', { name: 'Save layout' }));
    expect(await screen.findByText('This field is required.')).toBeInTheDocument();
    expect(screen.getByLabelText('Reference / UTR column')).toHaveAttribute('aria-invalid', 'true');
  });
});

describe('repayments filters', () => {
  it('filters by market and by UTR, reference or order number, and exports the filtered queue', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/payments': (call) => ok(call.query.get('q') ? PAYMENTS.slice(0, 1) : PAYMENTS),
        'GET /api/v1/console/payments/counts': () =>
          ok([
            { market: 'IN', status: 'verifying', count: 1 },
            { market: 'IN', status: 'held', count: 1 },
            { market: 'IN', status: 'refund_due', count: 0 },
            { market: 'ID', status: 'verifying', count: 0 },
            { market: 'ID', status: 'held', count: 0 },
            { market: 'ID', status: 'refund_due', count: 0 },
          ]),
      },
    });
    renderConsole('/console/repayments');
    const user = userEvent.setup();
    expect(await screen.findByText(/India: 1 to verify, 1 held, 0 refunds due · Indonesia: 0 to verify/)).toBeInTheDocument();
    await user.click(within(screen.getByRole('navigation', { name: 'Market' })).getByRole('link', { name: 'India' }));
    await user.type(screen.getByLabelText('UTR, reference or order number'), '7000 0000 0001');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    expect(await screen.findByRole('list', { name: '1 payment waiting for finance, oldest first' })).toBeInTheDocument();
    const last = api.callsTo('GET', '/api/v1/console/payments').at(-1)!;
    expect(last.query.get('market')).toBe('IN');
    expect(last.query.get('q')).toBe('7000 0000 0001');
    expect(screen.getByRole('link', { name: 'Export CSV' })).toHaveAttribute(
      'href',
      '/api/v1/console/payments/export?market=IN&q=7000+0000+0001',
    );
    const item = within(screen.getByRole('list', { name: /waiting for finance/ })).getAllByRole('listitem')[0]!;
    expect(within(item).getByText('Waiting')).toBeInTheDocument();
  });
});
