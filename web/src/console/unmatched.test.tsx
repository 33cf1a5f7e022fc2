import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { CSRF, fakeConsoleApi, ok, OPERATORS, refusal, renderConsole, type ApiCall } from '@/test/render-console';

const QUEUE = 'GET /api/v1/console/payments';
const LIST = 'GET /api/v1/console/unmatched-receipts';
const RECEIVED_AT = Date.UTC(2026, 10, 24, 10, 0);

/** Answers of `GET /unmatched-receipts` as docs/API-CONSOLE.md describes them. */
function receipt(id: string, changes: Record<string, unknown> = {}) {
  return {
    id,
    kind: 'unmatched',
    orderNo: null,
    provider: 'razorpay',
    market: 'IN',
    reference: 'KPPAY1OOOOOO',
    providerPaymentId: 'pay_N331abc',
    amount: 350025,
    currency: 'INR',
    sentAt: RECEIVED_AT - 60_000,
    receivedAt: RECEIVED_AT,
    resolvedAt: null,
    resolvedByUsername: null,
    resolution: null,
    ...changes,
  };
}

/** Rupees quoting a mistyped reference, and Dragonpay's postback naming neither amount, currency nor reference. */
const WAITING = [
  receipt('u1'),
  receipt('u2', { provider: 'dragonpay', market: null, reference: '', providerPaymentId: 'DP-77', amount: null, currency: null, sentAt: null }),
];

const RESOLVED = receipt('u0', {
  resolvedAt: RECEIVED_AT + 3_600_000,
  resolvedByUsername: 'asha',
  resolution: 'Returned to the payer, HDFC N3312345.',
});

async function section() {
  return screen.findByRole('region', { name: 'Money no payment matches, or taken back' });
}

async function items() {
  return within(await screen.findByRole('list', { name: /no payment matches, newest first/ })).getAllByRole('listitem');
}

function facts(item: HTMLElement) {
  return Object.fromEntries(within(item).getAllByRole('term').map((dt) => [dt.textContent, dt.nextElementSibling?.textContent]));
}

describe('money no payment matches', () => {
  it('shows each sum waiting with its provider, amount, reference, provider id and time on the market’s clock', async () => {
    const api = fakeConsoleApi({ operator: OPERATORS.finance, signedIn: true, handlers: { [QUEUE]: () => ok([]), [LIST]: () => ok(WAITING) } });
    renderConsole('/console/repayments?market=IN');
    const region = await section();
    expect(within(region).getByText(/^2 sums wait\./)).toBeInTheDocument();
    const [rupees, unknown] = await items();
    expect(within(rupees!).getByRole('heading', { name: '₹3,500.25 from Razorpay Waiting' })).toBeInTheDocument();
    expect(facts(rupees!)).toEqual({
      Provider: 'Razorpay',
      Amount: '₹3,500.25',
      'Reference quoted': 'KPPAY1OOOOOO',
      "Provider's payment id": 'pay_N331abc',
      Received: '24 Nov 2026, 15:30 IST',
      'Sent (as the provider says)': '24 Nov 2026, 15:29 IST',
      Market: 'India',
    });
    // Money of no known market is given on both markets' clocks.
    expect(facts(unknown!)).toMatchObject({
      Provider: 'Dragonpay',
      Amount: 'Amount not given',
      'Reference quoted': 'No reference quoted',
      "Provider's payment id": 'DP-77',
      Received: '24 Nov 2026, 15:30 IST · 24 Nov 2026, 17:00 WIB',
      Market: 'Not known (either market)',
    });
    expect(within(rupees!).getByRole('button', { name: 'Record what was done…' })).toBeInTheDocument();
    const asked = api.callsTo('GET', '/api/v1/console/unmatched-receipts').at(-1)!;
    expect(asked.query.get('market')).toBe('IN');
    expect(asked.query.get('status')).toBe('waiting');
  });

  it('money a provider took back names the loan that still counts it', async () => {
    const back = receipt('r1', { kind: 'reversed', orderNo: 'KL-261124-7F3K9Q', amount: 524500 });
    fakeConsoleApi({ operator: OPERATORS.finance, signedIn: true, handlers: { [QUEUE]: () => ok([]), [LIST]: () => ok([back]) } });
    renderConsole('/console/repayments?market=IN');
    const [item] = await items();
    expect(within(item!).getByRole('heading', { name: '₹5,245 taken back by Razorpay Waiting' })).toBeInTheDocument();
    expect(within(item!).getByRole('link', { name: 'KL-261124-7F3K9Q' })).toHaveAttribute('href', '/console/orders/KL-261124-7F3K9Q');
  });

  it('reads the market the screen is filtered to, on that market’s clock', async () => {
    const rupiah = receipt('u3', { provider: 'xendit', market: 'ID', currency: 'IDR', amount: 150000000, reference: 'KPX', providerPaymentId: 'x-1' });
    const api = fakeConsoleApi({ operator: OPERATORS.finance, signedIn: true, handlers: { [QUEUE]: () => ok([]), [LIST]: () => ok([rupiah]) } });
    renderConsole('/console/repayments?market=ID');
    const [item] = await items();
    expect(facts(item!)).toMatchObject({ Provider: 'Xendit', Amount: expect.stringMatching(/^Rp\s1\.500\.000$/), Received: '24 Nov 2026, 17:00 WIB', Market: 'Indonesia' });
    expect(api.callsTo('GET', '/api/v1/console/unmatched-receipts').at(-1)!.query.get('market')).toBe('ID');
  });

  it('says in one line that nothing waits, and shows the resolved ones with who resolved them and what they wrote', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: { [QUEUE]: () => ok([]), [LIST]: (call) => ok(call.query.get('status') === 'all' ? [RESOLVED] : []) },
    });
    renderConsole('/console/repayments');
    const user = userEvent.setup();
    expect(await screen.findByText('Money no payment matches: nothing waits.')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Money no payment matches' })).not.toBeInTheDocument();
    expect(api.callsTo('GET', '/api/v1/console/unmatched-receipts').at(-1)!.query.has('market')).toBe(false);
    await user.click(screen.getByRole('button', { name: 'Show resolved too' }));
    const [item] = await items();
    expect(api.callsTo('GET', '/api/v1/console/unmatched-receipts').at(-1)!.query.get('status')).toBe('all');
    expect(within(item!).getByText('Resolved')).toBeInTheDocument();
    expect(item).toHaveTextContent('Resolved by asha on 24 Nov 2026, 16:30 IST: “Returned to the payer, HDFC N3312345.”');
    expect(within(item!).queryByRole('button', { name: 'Record what was done…' })).not.toBeInTheDocument();
    expect(within(await section()).getByRole('button', { name: 'Show resolved too' })).toHaveAttribute('aria-pressed', 'true');
  });

  it('records what was done with the CSRF token; the sum leaves the waiting list', async () => {
    let resolved = false;
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [QUEUE]: () => ok([]),
        [LIST]: () => ok(resolved ? WAITING.slice(1) : WAITING),
        'POST /api/v1/console/unmatched-receipts/u1/resolve': (call: ApiCall) => {
          resolved = true;
          const { resolution } = call.body as { resolution: string };
          return ok({ ...WAITING[0], resolvedAt: RECEIVED_AT + 60_000, resolvedByUsername: 'fay', resolution });
        },
      },
    });
    renderConsole('/console/repayments');
    const user = userEvent.setup();
    const first = (await items())[0]!;
    await user.click(within(first).getByRole('button', { name: 'Record what was done…' }));
    await user.type(within(first).getByLabelText('What was done with this money'), '  Credited by hand to KL-261120-PAIDXX.  ');
    await user.click(within(first).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Recorded what was done with the ₹3,500.25 from Razorpay.')).toBeInTheDocument();
    const sent = api.callsTo('POST', '/api/v1/console/unmatched-receipts/u1/resolve');
    expect(sent.map((c) => c.body)).toEqual([{ resolution: 'Credited by hand to KL-261120-PAIDXX.' }]);
    expect(sent[0]!.headers['X-CSRF-Token']).toBe(CSRF);
    expect(await screen.findByRole('list', { name: '1 sum no payment matches, newest first' })).toBeInTheDocument();
    expect(screen.queryByText('₹3,500.25 from Razorpay')).not.toBeInTheDocument();
  });

  it('money taken back can take its credit off the loan with the resolution; other money offers no such box', async () => {
    const back = receipt('r1', { kind: 'reversed', orderNo: 'KL-261124-7F3K9Q', amount: 524500 });
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [QUEUE]: () => ok([]),
        [LIST]: () => ok([back, WAITING[0]]),
        'POST /api/v1/console/unmatched-receipts/r1/resolve': (call: ApiCall) => {
          const { resolution } = call.body as { resolution: string };
          return ok({ ...back, resolvedAt: RECEIVED_AT + 60_000, resolvedByUsername: 'fay', resolution });
        },
      },
    });
    renderConsole('/console/repayments');
    const user = userEvent.setup();
    const [first, second] = await items();
    await user.click(within(second!).getByRole('button', { name: 'Record what was done…' }));
    expect(within(second!).queryByRole('checkbox')).not.toBeInTheDocument();
    await user.click(within(first!).getByRole('button', { name: 'Record what was done…' }));
    await user.type(within(first!).getByLabelText('What was done with this money'), 'Chargeback lost.');
    await user.click(within(first!).getByRole('checkbox', { name: /Also take the credit back from KL-261124-7F3K9Q/ }));
    await user.click(within(first!).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(/is off KL-261124-7F3K9Q's ledger: the loan owes it again/)).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/unmatched-receipts/r1/resolve').map((c) => c.body)).toEqual([
      { resolution: 'Chargeback lost.', takeBack: true },
    ]);
  });

  it('sends nothing without a resolution, and shows the server’s refusal of it at the field', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [QUEUE]: () => ok([]),
        [LIST]: () => ok(WAITING),
        'POST /api/v1/console/unmatched-receipts/u1/resolve': () =>
          refusal(422, 'validation_failed', 'Invalid.', { fields: { resolution: 'At most 500 characters.' } }),
      },
    });
    renderConsole('/console/repayments');
    const user = userEvent.setup();
    const first = (await items())[0]!;
    await user.click(within(first).getByRole('button', { name: 'Record what was done…' }));
    const field = within(first).getByLabelText('What was done with this money');
    await user.type(field, '   ');
    await user.click(within(first).getByRole('button', { name: 'Save' }));
    expect(within(first).getByText('Say what was done with this money.')).toBeInTheDocument();
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(api.callsTo('POST', '/api/v1/console/unmatched-receipts/u1/resolve')).toHaveLength(0);

    await user.type(field, 'Returned.');
    await user.click(within(first).getByRole('button', { name: 'Save' }));
    expect(await within(first).findByText('At most 500 characters.')).toBeInTheDocument();
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(within(first).queryByRole('alert')).not.toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/unmatched-receipts/u1/resolve')).toHaveLength(1);
  });

  it('says so when another operator recorded it first (409), and reads the list again', async () => {
    let taken = false;
    const api = fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: {
        [QUEUE]: () => ok([]),
        [LIST]: () => ok(taken ? WAITING.slice(1) : WAITING),
        'POST /api/v1/console/unmatched-receipts/u1/resolve': () => {
          taken = true;
          return refusal(409, 'receipt_resolved', 'Already resolved.');
        },
      },
    });
    renderConsole('/console/repayments');
    const user = userEvent.setup();
    const first = (await items())[0]!;
    const reads = api.callsTo('GET', '/api/v1/console/unmatched-receipts').length;
    await user.click(within(first).getByRole('button', { name: 'Record what was done…' }));
    await user.type(within(first).getByLabelText('What was done with this money'), 'Returned to the payer.');
    await user.click(within(first).getByRole('button', { name: 'Save' }));
    expect(await within(await section()).findByRole('alert')).toHaveTextContent(
      'Another operator already recorded what was done with the ₹3,500.25 from Razorpay. The list was read again.',
    );
    expect(await screen.findByRole('list', { name: '1 sum no payment matches, newest first' })).toBeInTheDocument();
    expect(api.callsTo('GET', '/api/v1/console/unmatched-receipts').length).toBeGreaterThan(reads);
  });

  it('shows a failed read with its own retry', async () => {
    let fail = true;
    fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: { [QUEUE]: () => ok([]), [LIST]: () => (fail ? refusal(500, 'internal', 'Something went wrong on our side.') : ok(WAITING)) },
    });
    renderConsole('/console/repayments');
    expect(await screen.findByText('Money no payment matches could not be read: Something went wrong on our side.')).toBeInTheDocument();
    fail = false;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Read it again' }));
    expect(await items()).toHaveLength(2);
  });
});
