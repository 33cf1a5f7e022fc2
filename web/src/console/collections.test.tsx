import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { OPERATORS, fakeConsoleApi, ok, refusal, renderConsole } from '@/test/render-console';
import { minorOf } from './format';
import { hoursText } from './screens/collections';

const HOURS_CLOSED = { market: 'IN', timezone: 'Asia/Kolkata', from: '08:00', until: '19:00', localTime: '21:14', localDate: '2026-12-10', open: false };
const HOURS_OPEN = { ...HOURS_CLOSED, localTime: '10:05', open: true };

const LOAN = {
  orderNo: 'KL-261101-AAAA01',
  market: 'IN',
  currency: 'INR',
  productName: 'Salary advance',
  status: 'overdue',
  phoneMasked: '+91 ******0501',
  daysPastDue: 12,
  bucket: '8-30',
  oldestDueDate: '2026-11-28',
  amountOverdue: 1_064_000,
  outstanding: 1_064_000,
  lastReminder: { kind: 'overdue', installment: 1, status: 'sent', attempts: 1, createdAt: Date.UTC(2026, 11, 9, 3), sentAt: Date.UTC(2026, 11, 9, 3) },
  paymentWaiting: false,
  lastContact: null,
  promise: { id: 'p1', amount: 500_000, madeOn: '2026-12-08', date: '2026-12-09', received: 0, state: 'broken', at: Date.UTC(2026, 11, 8), by: 'cole' },
};

const QUEUE = {
  market: 'IN',
  today: '2026-12-10',
  contactHours: HOURS_OPEN,
  counts: { '1-7': 3, '8-30': 1, '31-60': 0, '61-90': 0, '90+': 2 },
  total: 6,
  page: 1,
  pageSize: 50,
  items: [LOAN],
};

function caseOf(hours: typeof HOURS_OPEN) {
  return {
    orderNo: LOAN.orderNo,
    market: 'IN',
    currency: 'INR',
    productName: 'Salary advance',
    status: 'overdue',
    today: '2026-12-10',
    phoneMasked: '+91 ******0501',
    daysPastDue: 12,
    bucket: '8-30',
    oldestDueDate: '2026-11-28',
    amountOverdue: 1_064_000,
    outstanding: 1_064_000,
    contactHours: hours,
    installments: [{ number: 1, dueDate: '2026-11-28', outstanding: 1_064_000, status: 'overdue' }],
    contacts: [{ id: 'c1', channel: 'call', outcome: 'no_answer', note: 'Rang twice.', localTime: '10:01', at: Date.UTC(2026, 11, 10, 4, 31), by: 'cole' }],
    promises: [],
    reminders: [],
    waitingPayments: [] as unknown[],
  };
}

describe('collections', () => {
  it('says the contact hours in the market and its time now', () => {
    const t = ((key: string, o?: Record<string, string>) => (o ? `${key}|${o.from}|${o.until}|${o.market}|${o.now}` : key)) as never;
    expect(hoursText(HOURS_CLOSED as never, t)).toBe('collections.hoursClosed|08:00|19:00|market.IN|21:14');
    expect(hoursText(HOURS_OPEN as never, t)).toBe('collections.hoursOpen|08:00|19:00|market.IN|10:05');
  });

  it('reads amounts typed in rupees or rupiah as minor units', () => {
    expect(minorOf('2,500.50', 'INR')).toBe(250_050);
    expect(minorOf('₹ 2500', 'INR')).toBe(250_000);
    expect(minorOf('1.5', 'INR')).toBe(150);
    expect(minorOf('Rp 750000', 'IDR')).toBe(75_000_000);
    // As the console writes rupiah: dots group thousands; sen only as zero.
    expect(minorOf('Rp 1.064.000', 'IDR')).toBe(106_400_000);
    expect(minorOf('1.000.000,00', 'IDR')).toBe(100_000_000);
    expect(minorOf('750.000', 'IDR')).toBe(75_000_000);
    expect(minorOf('1.000.000,50', 'IDR')).toBeNull();
    expect(minorOf('1.00.000', 'IDR')).toBeNull();
    expect(minorOf('750000.50', 'IDR')).toBeNull();
    // Rupees grouped as statements write them, in lakhs or thousands; commas anywhere else are not an amount.
    expect(minorOf('1,00,000.50', 'INR')).toBe(10_000_050);
    expect(minorOf('12,34,567', 'INR')).toBe(123_456_700);
    expect(minorOf('100,000', 'INR')).toBe(10_000_000);
    expect(minorOf('Rs. 3,500', 'INR')).toBe(350_000);
    expect(minorOf('1,0,0', 'INR')).toBeNull();
    expect(minorOf('10,00', 'INR')).toBeNull();
    expect(minorOf('rp 1.000.000', 'IDR')).toBe(100_000_000);
    expect(minorOf('IDR 750.000', 'IDR')).toBe(75_000_000);
    expect(minorOf('abc', 'INR')).toBeNull();
    expect(minorOf('-5', 'INR')).toBeNull();
  });

  it('lists the overdue queue with bucket counts, money and the promise, and filters by bucket', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.collections,
      signedIn: true,
      handlers: {
        // The 90+ bucket is cleared by the time it is asked for: no loan and a total of none.
        'GET /api/v1/console/collections': (call) =>
          ok(call.query.get('bucket') === '90+' ? { ...QUEUE, counts: { ...QUEUE.counts, '90+': 0 }, total: 0, items: [] } : QUEUE),
      },
    });
    const user = userEvent.setup();
    renderConsole('/console/collections');
    expect(await screen.findByRole('link', { name: LOAN.orderNo })).toHaveAttribute('href', `/console/collections/${LOAN.orderNo}`);
    const row = screen.getByRole('link', { name: LOAN.orderNo }).closest('tr')!;
    expect(within(row).getAllByText('₹10,640')).toHaveLength(2);
    expect(within(row).getByText('Broken')).toBeInTheDocument();
    expect(within(row).getByText('+91 ******0501')).toBeInTheDocument();
    expect(screen.getByText('Calling hours are 08:00–19:00 in India; it is 10:05 there now.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'All 6' })).toHaveAttribute('aria-pressed', 'true');
    await user.click(screen.getByRole('button', { name: '90+ days 2' }));
    expect(await screen.findByText('No loan in India is past due in this bucket.')).toBeInTheDocument();
    const last = api.callsTo('GET', '/api/v1/console/collections').at(-1)!;
    expect(last.query.get('bucket')).toBe('90+');
    expect(last.query.get('market')).toBe('IN');
    // The section is in the navigation of a collections agent; the review queue is not.
    expect(screen.getByRole('link', { name: 'Collections' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Review queue' })).toBeNull();
  });

  it('goes to the last page, in place, when the page asked for is past the end of the queue', async () => {
    // The 8-30 bucket was paid down to 60 loans (two pages) while the agent was on, or had a link to, page 3.
    const api = fakeConsoleApi({
      operator: OPERATORS.collections,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/collections': (call) =>
          ok({ ...QUEUE, counts: { ...QUEUE.counts, '8-30': 60 }, total: 60, page: Number(call.query.get('page')), items: call.query.get('page') === '2' ? [LOAN] : [] }),
      },
    });
    renderConsole('/console/collections?market=IN&bucket=8-30&page=3');
    const length = window.history.length;
    expect(await screen.findByRole('link', { name: LOAN.orderNo })).toBeInTheDocument();
    expect(screen.queryByText('No loan in India is past due in this bucket.')).toBeNull();
    expect(screen.getByText('Page 2 of 2')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Previous' })).toBeEnabled();
    expect(api.callsTo('GET', '/api/v1/console/collections').map((c) => c.query.get('page'))).toEqual(['3', '2']);
    // The address says the page shown, and Back does not return to the empty one.
    expect(new URLSearchParams(window.location.search).get('page')).toBe('2');
    expect(new URLSearchParams(window.location.search).get('bucket')).toBe('8-30');
    expect(window.history.length).toBe(length);
  });

  it('says the queue changed, with the pager, when a page inside the total comes back empty', async () => {
    // The total and the page are read apart: loans paid between the two reads leave a page empty though the total is not.
    fakeConsoleApi({
      operator: OPERATORS.collections,
      signedIn: true,
      handlers: { 'GET /api/v1/console/collections': () => ok({ ...QUEUE, total: 60, page: 2, items: [] }) },
    });
    renderConsole('/console/collections?market=IN&page=2');
    expect(await screen.findByText('The queue changed while page 2 loaded: none of the 60 loans that match came on it.')).toBeInTheDocument();
    expect(screen.queryByText('No loan in India is past due in this bucket.')).toBeNull();
    expect(screen.getByText('Page 2 of 2')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Previous' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Reload' })).toBeInTheDocument();
  });

  it('shows a payment waiting for finance on the panel and marks its loan in the queue', async () => {
    const waiting = {
      reference: 'PAY-7Q2M',
      status: 'verifying',
      amount: 1_064_000,
      receivedAmount: null,
      installment: 1,
      installmentTo: 1,
      at: Date.UTC(2026, 11, 9, 5, 30),
    };
    fakeConsoleApi({
      operator: OPERATORS.collections,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/collections': () =>
          ok({ ...QUEUE, items: [{ ...LOAN, paymentWaiting: true, promise: { ...LOAN.promise, state: 'waiting' } }] }),
        [`GET /api/v1/console/collections/${LOAN.orderNo}`]: () => ok({ ...caseOf(HOURS_OPEN), waitingPayments: [waiting] }),
      },
    });
    const user = userEvent.setup();
    renderConsole('/console/collections');
    const link = await screen.findByRole('link', { name: LOAN.orderNo });
    const row = link.closest('tr')!;
    expect(within(row).getByText('Payment waiting')).toBeInTheDocument();
    expect(within(row).getByText('Paid? Finance is checking')).toBeInTheDocument();
    await user.click(link);
    const note = await screen.findByTestId('waiting-payments');
    expect(note).toHaveTextContent('finance has yet to decide. Do not chase what these cover until then.');
    expect(note).toHaveTextContent(/PAY-7Q2M · UTR being checked · ₹10,640 for installment 1 · since/);
  });

  it('says when calling hours are closed and logs no contact then, not even an email, nor shows the number', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.collections,
      signedIn: true,
      handlers: {
        [`GET /api/v1/console/collections/${LOAN.orderNo}`]: () => ok(caseOf(HOURS_CLOSED)),
      },
    });
    const user = userEvent.setup();
    renderConsole(`/console/collections/${LOAN.orderNo}`);
    expect(await screen.findByText(/Calling hours are 08:00–19:00 in India; it is 21:14 there now\./)).toBeInTheDocument();
    expect(screen.getByText('Rang twice.')).toBeInTheDocument();
    const logButton = screen.getByRole('button', { name: 'Log contact' });
    expect(logButton).toBeDisabled();
    expect(screen.getByText('Outside calling hours: contact the borrower only within them.')).toBeInTheDocument();
    await user.selectOptions(screen.getByLabelText('Channel'), 'email');
    expect(logButton).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Show full number' })).toBeDisabled();
    // Nor a promise, made in a contact.
    expect(screen.getByRole('button', { name: 'Record promise' })).toBeDisabled();
    expect(api.callsTo('POST', `/api/v1/console/collections/${LOAN.orderNo}/contacts`)).toHaveLength(0);
  });

  it('logs an attempt made before the hours closed at its own time', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.collections,
      signedIn: true,
      handlers: {
        [`GET /api/v1/console/collections/${LOAN.orderNo}`]: () => ok(caseOf({ ...HOURS_CLOSED, localTime: '19:01' })),
        [`POST /api/v1/console/collections/${LOAN.orderNo}/contacts`]: (call) =>
          ok({ id: 'c9', ...(call.body as object), localTime: '18:58', at: Date.UTC(2026, 11, 10, 13, 28), by: 'cole', promise: null }),
      },
    });
    const user = userEvent.setup();
    renderConsole(`/console/collections/${LOAN.orderNo}`);
    const logButton = await screen.findByRole('button', { name: 'Log contact' });
    expect(logButton).toBeDisabled();
    expect(screen.getByText(/An attempt made earlier today, within them, can still be logged/)).toBeInTheDocument();
    await user.selectOptions(screen.getByLabelText('Outcome'), 'no_answer');
    await user.type(screen.getByLabelText('Time of the attempt (today)'), '18:58');
    expect(logButton).toBeEnabled();
    await user.click(logButton);
    await vi.waitFor(() => expect(api.callsTo('POST', `/api/v1/console/collections/${LOAN.orderNo}/contacts`)).toHaveLength(1));
    expect(api.callsTo('POST', `/api/v1/console/collections/${LOAN.orderNo}/contacts`)[0]!.body).toMatchObject({ attemptedAt: '18:58', outcome: 'no_answer' });
  });

  it('keeps a number shown within the hours as plain text, not a tel: link, once they close', async () => {
    let hours = HOURS_OPEN;
    fakeConsoleApi({
      operator: OPERATORS.collections,
      signedIn: true,
      handlers: {
        [`GET /api/v1/console/collections/${LOAN.orderNo}`]: () => ok(caseOf(hours)),
        [`POST /api/v1/console/collections/${LOAN.orderNo}/phone`]: () => ok({ phone: '+919876500501' }),
        [`POST /api/v1/console/collections/${LOAN.orderNo}/contacts`]: (call) => {
          // Logged at the last minute: the case read again after it says the hours are over.
          hours = HOURS_CLOSED;
          return ok({ id: 'c2', ...(call.body as object), localTime: '19:00', at: Date.UTC(2026, 11, 10, 13, 30), by: 'cole', promise: null });
        },
      },
    });
    const user = userEvent.setup();
    renderConsole(`/console/collections/${LOAN.orderNo}`);
    await user.click(await screen.findByRole('button', { name: 'Show full number' }));
    expect(await screen.findByRole('link', { name: '+919876500501' })).toHaveAttribute('href', 'tel:+919876500501');
    await user.click(screen.getByRole('button', { name: 'Log contact' }));
    expect(await screen.findByText(/it is 21:14 there now/)).toBeInTheDocument();
    const phone = screen.getByText('+919876500501');
    expect(phone.closest('a')).toBeNull();
    expect(screen.queryByRole('link', { name: '+919876500501' })).toBeNull();
    expect(document.querySelector('a[href^="tel:"]')).toBeNull();
    expect(phone.closest('dd')).toHaveTextContent('Outside calling hours: contact the borrower only within them.');
  });

  it('logs “Promised to pay” with the promise’s date and amount, in minor units, and refreshes the case’s promises', async () => {
    const promise = { id: 'p3', amount: 250_000, madeOn: '2026-12-10', date: '2026-12-12', received: 0, state: 'open', at: Date.UTC(2026, 11, 10, 4, 36), by: 'cole' };
    const contact = { id: 'c2', channel: 'call', outcome: 'promised', note: 'Pays on payday.', localTime: '10:06', at: Date.UTC(2026, 11, 10, 4, 36), by: 'cole' };
    let logged = false;
    const api = fakeConsoleApi({
      operator: OPERATORS.collections,
      signedIn: true,
      handlers: {
        [`GET /api/v1/console/collections/${LOAN.orderNo}`]: () =>
          ok(logged ? { ...caseOf(HOURS_OPEN), contacts: [contact, ...caseOf(HOURS_OPEN).contacts], promises: [promise] } : caseOf(HOURS_OPEN)),
        [`POST /api/v1/console/collections/${LOAN.orderNo}/contacts`]: () => {
          logged = true;
          return ok({ ...contact, promise });
        },
      },
    });
    const user = userEvent.setup();
    renderConsole(`/console/collections/${LOAN.orderNo}`);
    const form = await screen.findByRole('form', { name: 'Log a contact attempt' });
    // No promise to fill in until the borrower promised.
    expect(within(form).queryByLabelText('Pay by')).toBeNull();
    expect(within(form).queryByLabelText('Amount (₹)')).toBeNull();
    await user.selectOptions(within(form).getByLabelText('Outcome'), 'promised');
    expect(within(form).getByLabelText('Pay by')).toHaveAttribute('min', '2026-12-10');
    expect(within(form).getByLabelText('Amount (₹)')).toHaveAccessibleDescription('Overdue now ₹10,640; outstanding ₹10,640.');
    await user.type(within(form).getByLabelText('Pay by'), '2026-12-12');
    await user.type(within(form).getByLabelText('Amount (₹)'), '2,500');
    await user.type(within(form).getByLabelText('Note'), 'Pays on payday.');
    await user.click(within(form).getByRole('button', { name: 'Log contact' }));
    expect(await within(form).findByText('Contact logged, with a promise to pay ₹2,500 by 12 Dec 2026.')).toBeInTheDocument();
    expect(api.callsTo('POST', `/api/v1/console/collections/${LOAN.orderNo}/contacts`).map((c) => c.body)).toStrictEqual([
      { channel: 'call', outcome: 'promised', note: 'Pays on payday.', promiseDate: '2026-12-12', promiseAmount: 250_000 },
    ]);
    // One request records both: the promise form is not used.
    expect(api.callsTo('POST', `/api/v1/console/collections/${LOAN.orderNo}/promises`)).toHaveLength(0);
    expect(within(form).getByLabelText('Pay by')).toHaveValue('');
    expect(within(form).getByLabelText('Amount (₹)')).toHaveValue('');
    expect(within(form).getByLabelText('Note')).toHaveValue('');
    // The case is read again: the promise is followed up in its list, the contact in the log.
    const promises = screen.getByRole('region', { name: 'Promises to pay' });
    expect(await within(promises).findByText('₹2,500')).toBeInTheDocument();
    expect(within(promises).getByText('Open')).toBeInTheDocument();
    expect(screen.getByText('Pays on payday.')).toBeInTheDocument();
  });

  it('logs any other outcome without a promise, even one typed before the outcome changed', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.collections,
      signedIn: true,
      handlers: {
        [`GET /api/v1/console/collections/${LOAN.orderNo}`]: () => ok(caseOf(HOURS_OPEN)),
        [`POST /api/v1/console/collections/${LOAN.orderNo}/contacts`]: (call) =>
          ok({ id: 'c2', ...(call.body as object), localTime: '10:06', at: Date.UTC(2026, 11, 10, 4, 36), by: 'cole', promise: null }),
      },
    });
    const user = userEvent.setup();
    renderConsole(`/console/collections/${LOAN.orderNo}`);
    const form = await screen.findByRole('form', { name: 'Log a contact attempt' });
    await user.selectOptions(within(form).getByLabelText('Outcome'), 'promised');
    await user.type(within(form).getByLabelText('Pay by'), '2026-12-12');
    await user.type(within(form).getByLabelText('Amount (₹)'), 'soon');
    await user.selectOptions(within(form).getByLabelText('Outcome'), 'refused');
    await user.selectOptions(within(form).getByLabelText('Channel'), 'sms');
    expect(within(form).queryByLabelText('Pay by')).toBeNull();
    expect(within(form).queryByLabelText('Amount (₹)')).toBeNull();
    await user.click(within(form).getByRole('button', { name: 'Log contact' }));
    expect(await within(form).findByText('Contact logged.')).toBeInTheDocument();
    expect(api.callsTo('POST', `/api/v1/console/collections/${LOAN.orderNo}/contacts`).map((c) => c.body)).toStrictEqual([{ channel: 'sms', outcome: 'refused', note: '' }]);
  });

  it('shows the server’s refusal of the promise under its date or its amount', async () => {
    const open = 'A promise to pay is still open on this loan: ₹5,000 by 12 Dec 2026.';
    const tooMuch = 'At most ₹10,640, what the loan owes.';
    const answers = [
      refusal(422, 'validation_failed', 'Check the fields.', { fields: { promiseDate: open } }),
      refusal(422, 'validation_failed', 'Check the fields.', { fields: { promiseAmount: tooMuch } }),
    ];
    const api = fakeConsoleApi({
      operator: OPERATORS.collections,
      signedIn: true,
      handlers: {
        [`GET /api/v1/console/collections/${LOAN.orderNo}`]: () => ok(caseOf(HOURS_OPEN)),
        [`POST /api/v1/console/collections/${LOAN.orderNo}/contacts`]: () => answers.shift()!,
      },
    });
    const user = userEvent.setup();
    renderConsole(`/console/collections/${LOAN.orderNo}`);
    const form = await screen.findByRole('form', { name: 'Log a contact attempt' });
    await user.selectOptions(within(form).getByLabelText('Outcome'), 'promised');
    await user.type(within(form).getByLabelText('Pay by'), '2026-12-14');
    await user.type(within(form).getByLabelText('Amount (₹)'), '20000');
    await user.click(within(form).getByRole('button', { name: 'Log contact' }));
    expect(await within(form).findByText(open)).toBeInTheDocument();
    const date = within(form).getByLabelText('Pay by');
    expect(date).toHaveAccessibleDescription(open);
    expect(date).toHaveAttribute('aria-invalid', 'true');
    expect(date).toHaveValue('2026-12-14');
    expect(within(form).getByLabelText('Amount (₹)')).toHaveValue('20000');
    expect(within(form).queryByText('Check the fields.')).toBeNull();
    expect(within(form).queryByRole('status')).toBeNull();
    await user.click(within(form).getByRole('button', { name: 'Log contact' }));
    expect(await within(form).findByText(tooMuch)).toBeInTheDocument();
    expect(within(form).getByLabelText('Amount (₹)')).toHaveAccessibleDescription(`Overdue now ₹10,640; outstanding ₹10,640. ${tooMuch}`);
    expect(within(form).queryByText(open)).toBeNull();
    expect(api.callsTo('POST', `/api/v1/console/collections/${LOAN.orderNo}/contacts`)).toHaveLength(2);
  });

  it('refuses a promised amount that is not one before sending anything', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.collections,
      signedIn: true,
      handlers: { [`GET /api/v1/console/collections/${LOAN.orderNo}`]: () => ok(caseOf(HOURS_OPEN)) },
    });
    const user = userEvent.setup();
    renderConsole(`/console/collections/${LOAN.orderNo}`);
    const form = await screen.findByRole('form', { name: 'Log a contact attempt' });
    await user.selectOptions(within(form).getByLabelText('Outcome'), 'promised');
    await user.type(within(form).getByLabelText('Pay by'), '2026-12-12');
    for (const typed of ['2.500,50', '0']) {
      await user.clear(within(form).getByLabelText('Amount (₹)'));
      await user.type(within(form).getByLabelText('Amount (₹)'), typed);
      await user.click(within(form).getByRole('button', { name: 'Log contact' }));
      expect(within(form).getByLabelText('Amount (₹)')).toHaveAccessibleDescription(
        'Overdue now ₹10,640; outstanding ₹10,640. Enter an amount above zero, e.g. 2500 or 2500.50.',
      );
    }
    expect(api.callsTo('POST', `/api/v1/console/collections/${LOAN.orderNo}/contacts`)).toHaveLength(0);
    // The promise form checks its own amount apart.
    expect(screen.getByRole('form', { name: 'Record a promise to pay' })).not.toHaveTextContent('Enter an amount above zero');
  });

  it('records a promise in minor units and shows the server’s field error', async () => {
    let first = true;
    const api = fakeConsoleApi({
      operator: OPERATORS.collections,
      signedIn: true,
      handlers: {
        [`GET /api/v1/console/collections/${LOAN.orderNo}`]: () => ok(caseOf(HOURS_OPEN)),
        [`POST /api/v1/console/collections/${LOAN.orderNo}/promises`]: () => {
          if (first) {
            first = false;
            return refusal(422, 'validation_failed', 'Check the fields.', { fields: { date: 'Choose a date from 2026-12-10 to 2027-01-09 (the market’s calendar).' } });
          }
          return ok({ id: 'p2', amount: 250_050, madeOn: '2026-12-10', date: '2026-12-12', received: 0, state: 'open', at: Date.now(), by: 'cole' });
        },
        [`POST /api/v1/console/collections/${LOAN.orderNo}/phone`]: () => ok({ phone: '+919876500501' }),
      },
    });
    const user = userEvent.setup();
    renderConsole(`/console/collections/${LOAN.orderNo}`);
    await user.type(await screen.findByLabelText('Pay by'), '2027-02-01');
    await user.type(screen.getByLabelText('Amount (₹)'), '2,500.50');
    await user.click(screen.getByRole('button', { name: 'Record promise' }));
    expect(await screen.findByText('Choose a date from 2026-12-10 to 2027-01-09 (the market’s calendar).')).toBeInTheDocument();
    await user.clear(screen.getByLabelText('Pay by'));
    await user.type(screen.getByLabelText('Pay by'), '2026-12-12');
    await user.click(screen.getByRole('button', { name: 'Record promise' }));
    expect(await screen.findByText('Promise recorded: ₹2,500.50 by 12 Dec 2026.')).toBeInTheDocument();
    expect(api.callsTo('POST', `/api/v1/console/collections/${LOAN.orderNo}/promises`)[1]?.body).toEqual({ date: '2026-12-12', amount: 250_050 });
    // The full number only on request.
    expect(screen.queryByText('+919876500501')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Show full number' }));
    expect(await screen.findByRole('link', { name: '+919876500501' })).toHaveAttribute('href', 'tel:+919876500501');
  });
});
