import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { deferred, fakeApi, ME_IN, ok, refusal, renderBorrower, type ApiCall, type Handler } from '@/test/render-borrower';
import { AGREEMENT_PREVIEW, ORDER_DETAIL } from '../orders/fixtures.test-data';
import { KFS_IN } from './fixtures.test-data';

const CONFIRM_URL = '/app/products/in-flexi-14d/kfs?amount=600000&term=14dx3&lang=1';
const ACCEPT = 'I have read the Key Fact Statement and the loan agreement above, and I accept both';

function confirming(handlers: Record<string, Handler> = {}) {
  const api = fakeApi({
    'POST /api/v1/borrower/apply': () => ok(KFS_IN),
    'POST /api/v1/borrower/apply/agreement': () => ok(AGREEMENT_PREVIEW),
    'POST /api/v1/borrower/orders': () => ok(ORDER_DETAIL, 201),
    'GET /api/v1/borrower/orders/KL-261123-7F3K9Q': () => ok(ORDER_DETAIL),
    ...handlers,
  });
  api.signIn();
  return api;
}

const keyOf = (call: ApiCall) => (call.body as { idempotencyKey: string }).idempotencyKey;
/** Where the confirmation of the loan in CONFIRM_URL is kept for the borrower `b-1` (ME_IN) while its answer is not known. */
const SENT_B1 = 'kilat.confirm-sent:b-1:in-flexi-14d:600000:14dx3';
/** The names in sessionStorage of what is kept of a borrower's applications and payments. */
const keptNames = () =>
  Array.from({ length: window.sessionStorage.length }, (_, index) => window.sessionStorage.key(index)!).filter((name) =>
    /^kilat\.(confirm|confirm-sent|pay):/.test(name),
  );

/** Confirms the loan in CONFIRM_URL as `b-1` with its answer lost: the confirmation and its key are kept. */
async function confirmWithAnswerLost(user: ReturnType<typeof userEvent.setup>) {
  const page = renderBorrower(CONFIRM_URL);
  await user.click(await screen.findByRole('checkbox', { name: ACCEPT }));
  await user.click(screen.getByRole('button', { name: 'Confirm' }));
  expect(await screen.findByRole('alert')).toHaveTextContent('Your loan is not confirmed yet');
  expect(keptNames().filter((name) => name.startsWith('kilat.confirm-sent:'))).toHaveLength(1);
  page.unmount();
}

describe('confirming a loan', () => {
  it('needs the statement accepted, then confirms it by its hash and opens the new loan', async () => {
    const api = confirming();
    const user = userEvent.setup();
    renderBorrower(CONFIRM_URL);
    const confirm = await screen.findByRole('button', { name: 'Confirm' });
    expect(screen.getByText('83.87%')).toBeInTheDocument();
    expect(confirm).toBeDisabled();
    expect(screen.getByText('Tick the box above to confirm.')).toBeInTheDocument();

    await user.click(confirm);
    expect(api.callsTo('POST', '/api/v1/borrower/orders')).toHaveLength(0);

    await user.click(screen.getByRole('checkbox', { name: ACCEPT }));
    expect(confirm).toBeEnabled();
    await user.click(screen.getByRole('checkbox', { name: ACCEPT }));
    expect(confirm).toBeDisabled();
    await user.click(screen.getByRole('checkbox', { name: ACCEPT }));
    vi.mocked(window.scrollTo).mockClear();
    await user.click(confirm);

    expect(await screen.findByRole('heading', { level: 1, name: 'Loan' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/app/orders/KL-261123-7F3K9Q');
    expect(screen.getByText('Loan number KL-261123-7F3K9Q')).toBeInTheDocument();
    const [call] = api.callsTo('POST', '/api/v1/borrower/orders');
    expect(call!.body).toEqual({
      productCode: 'in-flexi-14d',
      amount: 600000,
      termCode: '14dx3',
      kfsHash: KFS_IN.contentHash,
      agreementHash: AGREEMENT_PREVIEW.agreementHash,
      idempotencyKey: expect.stringMatching(/^[A-Za-z0-9_-]{8,64}$/),
    });
    // The answer was put in the cache: the detail needed no second request.
    expect(api.callsTo('GET', '/api/v1/borrower/orders/KL-261123-7F3K9Q')).toHaveLength(0);
    // The new loan opens at its top, not where the long statement was scrolled to. The layout scrolls in a
    // passive effect, which React may run just after the screen's text is in the document.
    await waitFor(() => expect(window.scrollTo).toHaveBeenCalledWith(0, 0));
  });

  it('shows this loan’s agreement before it can be accepted, and greets the new application with what comes next', async () => {
    const agreement = deferred();
    const api = confirming({ 'POST /api/v1/borrower/apply/agreement': () => agreement.promise });
    const user = userEvent.setup();
    renderBorrower(CONFIRM_URL);
    const accept = await screen.findByRole('checkbox', { name: ACCEPT });
    // Nothing can be accepted unread: the agreement is still on its way.
    expect(accept).toBeDisabled();
    agreement.resolve(ok(AGREEMENT_PREVIEW));

    await screen.findByText('7. Prepayment');
    const section = screen.getByRole('heading', { level: 2, name: 'Loan agreement' }).closest('section')!;
    expect(section).toHaveTextContent('When you confirm, it is stored with your loan exactly as shown');
    expect(section).toHaveTextContent('Bank accountHDFC Bank **** **** 4321');
    expect(section).toHaveTextContent('7. Prepayment');
    expect(section).toHaveTextContent('The lender lends the borrower the amount sanctioned in the Key Fact Statement.');
    // The agreement is asked for with the same loan as the statement.
    expect(api.callsTo('POST', '/api/v1/borrower/apply/agreement')[0]!.body).toEqual({ productCode: 'in-flexi-14d', amount: 600000, termCode: '14dx3' });

    await user.click(accept);
    await user.click(screen.getByRole('button', { name: 'Confirm' }));
    const sent = await screen.findByRole('status', { name: 'Application sent' });
    expect(sent).toHaveTextContent('Application sent');
    expect(sent).toHaveTextContent('Your application KL-261123-7F3K9Q is with the lender');
    expect(screen.getByText(/Under review: a reviewer checks applications in the order they arrive/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Withdraw application' })).toBeInTheDocument();
  });

  it('cannot confirm when the agreement could not be prepared, and offers a retry', async () => {
    let fail = true;
    confirming({ 'POST /api/v1/borrower/apply/agreement': () => (fail ? refusal(503, 'internal', 'Service unavailable.') : ok(AGREEMENT_PREVIEW)) });
    const user = userEvent.setup();
    renderBorrower(CONFIRM_URL);
    expect(await screen.findByText('The loan agreement could not be prepared.')).toBeInTheDocument();
    expect(screen.getByRole('checkbox', { name: ACCEPT })).toBeDisabled();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(screen.getByRole('checkbox', { name: ACCEPT })).toBeEnabled());
  });

  it('sends one key however often it is retried or the page reloaded, and a new key for another statement', async () => {
    let answer: () => Response | Promise<Response> = () => Promise.reject(new TypeError('Failed to fetch'));
    const api = confirming({ 'POST /api/v1/borrower/orders': () => answer() });
    const user = userEvent.setup();
    const first = renderBorrower(CONFIRM_URL);
    await user.click(await screen.findByRole('checkbox', { name: ACCEPT }));
    await user.click(screen.getByRole('button', { name: 'Confirm' }));

    const problem = await screen.findByRole('alert');
    expect(problem).toHaveTextContent('Your loan is not confirmed yet');
    expect(problem).toHaveTextContent('We could not reach the server.');
    expect(problem).toHaveTextContent('If the first try did go through, you will see that loan, never a second one.');
    expect(window.location.pathname).toBe('/app/products/in-flexi-14d/kfs');

    answer = () => refusal(500, 'internal', 'Something went wrong on our side.');
    await user.click(screen.getByRole('button', { name: 'Confirm' }));
    await waitFor(() => expect(api.callsTo('POST', '/api/v1/borrower/orders')).toHaveLength(2));
    expect(await screen.findByText('Something went wrong on our side.')).toBeInTheDocument();

    // A reload of the same page: a fresh app, the same sessionStorage.
    first.unmount();
    renderBorrower(CONFIRM_URL);
    await user.click(await screen.findByRole('checkbox', { name: ACCEPT }));
    answer = () => ok(ORDER_DETAIL, 200);
    await user.click(screen.getByRole('button', { name: 'Confirm' }));
    await screen.findByText('Loan number KL-261123-7F3K9Q');

    const keys = api.callsTo('POST', '/api/v1/borrower/orders').map(keyOf);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    // The order exists: the key is spent, so applying again later (after a cancel) is a new application.
    expect(window.sessionStorage.getItem(`kilat.confirm:in-flexi-14d:600000:14dx3:${KFS_IN.contentHash}`)).toBeNull();
  });

  it('opens the loan when its confirmation was made but the answer lost, after a reload', async () => {
    let created = false;
    let firstKey = '';
    const replay = deferred();
    const api = confirming({
      'POST /api/v1/borrower/apply': () => (created ? refusal(409, 'open_order_exists', 'You already have an open order.') : ok(KFS_IN)),
      'POST /api/v1/borrower/orders': (call) => {
        if (!created) {
          // The server made the order; its answer never reached the phone.
          created = true;
          firstKey = keyOf(call);
          return Promise.reject(new TypeError('Failed to fetch'));
        }
        return keyOf(call) === firstKey ? replay.promise : refusal(409, 'open_order_exists', 'You already have an open order.');
      },
    });
    const user = userEvent.setup();
    const first = renderBorrower(CONFIRM_URL);
    await user.click(await screen.findByRole('checkbox', { name: ACCEPT }));
    await user.click(screen.getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Your loan is not confirmed yet');

    // A reload: `POST /apply` now refuses, for the order this confirmation made.
    first.unmount();
    renderBorrower(CONFIRM_URL);
    await waitFor(() => expect(api.callsTo('POST', '/api/v1/borrower/orders')).toHaveLength(2));
    // Sending it again is a wait, not a refusal.
    expect(screen.getByText('Loading…')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
    replay.resolve(ok(ORDER_DETAIL, 200));

    expect(await screen.findByText('Loan number KL-261123-7F3K9Q')).toBeInTheDocument();
    expect(window.location.pathname).toBe('/app/orders/KL-261123-7F3K9Q');
    expect(screen.getByRole('status', { name: 'Application sent' })).toBeInTheDocument();
    expect(screen.queryByText(/You already have a loan in progress/)).toBeNull();
    const [sent, again] = api.callsTo('POST', '/api/v1/borrower/orders');
    expect(again!.body).toEqual(sent!.body);
    expect(keyOf(again!)).toBe(firstKey);
    // Answered: nothing is kept to be sent a third time.
    expect(keptNames()).toEqual([]);
    expect(window.sessionStorage.getItem(SENT_B1)).toBeNull();
    expect(window.sessionStorage.getItem(`kilat.confirm:in-flexi-14d:600000:14dx3:${KFS_IN.contentHash}`)).toBeNull();
  });

  it('still refuses when the open order is of another loan than the confirmation kept', async () => {
    let created = false;
    const api = confirming({
      'POST /api/v1/borrower/apply': () => (created ? refusal(409, 'open_order_exists', 'You already have an open order.') : ok(KFS_IN)),
      'POST /api/v1/borrower/orders': () => {
        created = true;
        return Promise.reject(new TypeError('Failed to fetch'));
      },
    });
    const user = userEvent.setup();
    const first = renderBorrower(CONFIRM_URL);
    await user.click(await screen.findByRole('checkbox', { name: ACCEPT }));
    await user.click(screen.getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Your loan is not confirmed yet');

    // Another amount: nothing of it was sent, so the open order is not its own.
    first.unmount();
    renderBorrower('/app/products/in-flexi-14d/kfs?amount=500000&term=14dx3&lang=1');
    expect(await screen.findByRole('alert')).toHaveTextContent('You already have a loan in progress');
    expect(screen.getByRole('link', { name: 'See my loans' })).toHaveAttribute('href', '/app/orders');
    expect(api.callsTo('POST', '/api/v1/borrower/orders')).toHaveLength(1);
  });

  it('shows the refusal when the kept confirmation made no order', async () => {
    let created = false;
    const api = confirming({
      'POST /api/v1/borrower/apply': () => (created ? refusal(409, 'open_order_exists', 'You already have an open order.') : ok(KFS_IN)),
      // The first never reached the server; another order (another tab, another phone) is open since.
      'POST /api/v1/borrower/orders': () => {
        if (created) return refusal(409, 'open_order_exists', 'You already have an open order.');
        created = true;
        return Promise.reject(new TypeError('Failed to fetch'));
      },
    });
    const user = userEvent.setup();
    const first = renderBorrower(CONFIRM_URL);
    await user.click(await screen.findByRole('checkbox', { name: ACCEPT }));
    await user.click(screen.getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Your loan is not confirmed yet');

    first.unmount();
    renderBorrower(CONFIRM_URL);
    expect(await screen.findByRole('alert')).toHaveTextContent('You already have a loan in progress');
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
    expect(api.callsTo('POST', '/api/v1/borrower/orders')).toHaveLength(2);
    expect(window.sessionStorage.getItem(SENT_B1)).toBeNull();
  });

  it('applies anew when the kept key named an order that has ended since', async () => {
    const name = `kilat.confirm:in-flexi-14d:600000:14dx3:${KFS_IN.contentHash}`;
    window.sessionStorage.setItem(name, 'spent-key-0001');
    const api = confirming({
      'POST /api/v1/borrower/orders': (call) =>
        keyOf(call) === 'spent-key-0001' ? refusal(409, 'idempotency_key_reused', 'This key was used for another request.') : ok(ORDER_DETAIL, 201),
    });
    const user = userEvent.setup();
    renderBorrower(CONFIRM_URL);
    await user.click(await screen.findByRole('checkbox', { name: ACCEPT }));
    await user.click(screen.getByRole('button', { name: 'Confirm' }));
    await screen.findByText('Loan number KL-261123-7F3K9Q');
    const keys = api.callsTo('POST', '/api/v1/borrower/orders').map(keyOf);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe('spent-key-0001');
    expect(keys[1]).not.toBe('spent-key-0001');
  });

  it('cannot send two orders from a double tap', async () => {
    const pending = deferred();
    const api = confirming({ 'POST /api/v1/borrower/orders': () => pending.promise });
    const user = userEvent.setup();
    renderBorrower(CONFIRM_URL);
    await user.click(await screen.findByRole('checkbox', { name: ACCEPT }));
    await user.dblClick(screen.getByRole('button', { name: 'Confirm' }));
    expect(screen.getByRole('button', { name: /Confirming/ })).toBeDisabled();
    pending.resolve(ok(ORDER_DETAIL, 201));
    await screen.findByText('Loan number KL-261123-7F3K9Q');
    expect(api.callsTo('POST', '/api/v1/borrower/orders')).toHaveLength(1);
  });

  it('shows a changed statement again, unaccepted, and confirms the new one under a new key', async () => {
    let applies = 0;
    const changed = { ...KFS_IN, contentHash: 'f'.repeat(64), apr: 8400, aprDisplay: '84.00%' };
    const api = confirming({
      'POST /api/v1/borrower/apply': () => ok(++applies === 1 ? KFS_IN : changed),
      'POST /api/v1/borrower/orders': (call) =>
        (call.body as { kfsHash: string }).kfsHash === KFS_IN.contentHash
          ? refusal(409, 'kfs_changed', 'The Key Fact Statement has changed.')
          : ok(ORDER_DETAIL, 201),
    });
    const user = userEvent.setup();
    renderBorrower(CONFIRM_URL);
    await user.click(await screen.findByRole('checkbox', { name: ACCEPT }));
    await user.click(screen.getByRole('button', { name: 'Confirm' }));

    expect(await screen.findByText('84.00%')).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('Read the new statement above and accept it again to confirm.');
    expect(screen.getByRole('checkbox', { name: ACCEPT })).not.toBeChecked();
    expect(screen.getByRole('button', { name: 'Confirm' })).toBeDisabled();

    await user.click(screen.getByRole('checkbox', { name: ACCEPT }));
    await user.click(screen.getByRole('button', { name: 'Confirm' }));
    await screen.findByText('Loan number KL-261123-7F3K9Q');
    const calls = api.callsTo('POST', '/api/v1/borrower/orders');
    expect(calls.map((call) => (call.body as { kfsHash: string }).kfsHash)).toEqual([KFS_IN.contentHash, 'f'.repeat(64)]);
    expect(keyOf(calls[0]!)).not.toBe(keyOf(calls[1]!));
  });

  it('an agreement that changed since it was read is shown again, unaccepted, and the new one is sent', async () => {
    let changed = true;
    const fresh = { ...AGREEMENT_PREVIEW, agreementHash: 'b7'.repeat(32), borrower: { ...AGREEMENT_PREVIEW.borrower, bankAccountMasked: '**** **** 7777' } };
    const api = confirming({
      'POST /api/v1/borrower/apply/agreement': () => ok(changed ? AGREEMENT_PREVIEW : fresh),
      'POST /api/v1/borrower/orders': () => {
        if (!changed) return ok(ORDER_DETAIL, 201);
        changed = false;
        return refusal(422, 'validation_failed', 'Check the fields.', {
          fields: { agreementHash: 'Your details in the agreement changed since you read it. Please review the agreement again.' },
        });
      },
    });
    const user = userEvent.setup();
    renderBorrower(CONFIRM_URL);
    const confirm = await screen.findByRole('button', { name: 'Confirm' });
    await user.click(screen.getByRole('checkbox', { name: ACCEPT }));
    await user.click(confirm);
    expect(await screen.findByText('Your agreement has changed')).toBeInTheDocument();
    expect(screen.getByText(/Please review the agreement again/)).toBeInTheDocument();
    expect(await screen.findAllByText(/\*\*\*\* \*\*\*\* 7777/)).not.toHaveLength(0);
    expect(screen.getByRole('checkbox', { name: ACCEPT })).not.toBeChecked();
    await user.click(screen.getByRole('checkbox', { name: ACCEPT }));
    await user.click(screen.getByRole('button', { name: 'Confirm' }));
    await waitFor(() => expect(window.location.pathname).toBe('/app/orders/KL-261123-7F3K9Q'));
    const hashes = api.callsTo('POST', '/api/v1/borrower/orders').map((call) => (call.body as { agreementHash: string }).agreementHash);
    expect(hashes).toEqual([AGREEMENT_PREVIEW.agreementHash, fresh.agreementHash]);
  });

  it('says why a confirmation was refused and where to go, with no way to send it again', async () => {
    confirming({ 'POST /api/v1/borrower/orders': () => refusal(409, 'open_order_exists', 'You already have an open order.') });
    const user = userEvent.setup();
    renderBorrower(CONFIRM_URL);
    await user.click(await screen.findByRole('checkbox', { name: ACCEPT }));
    await user.click(screen.getByRole('button', { name: 'Confirm' }));
    const problem = await screen.findByRole('alert');
    expect(problem).toHaveTextContent('You already have a loan in progress');
    expect(screen.getByRole('link', { name: 'See my loans' })).toHaveAttribute('href', '/app/orders');
    expect(screen.queryByRole('button', { name: 'Confirm' })).toBeNull();
  });
});

describe('a confirmation kept after a lost answer', () => {
  it('is kept for the borrower who sent it, and never sent again for another borrower in the same tab', async () => {
    let me = ME_IN;
    let created = false;
    const api = confirming({
      'GET /api/v1/borrower/me': () => ok(me),
      'POST /api/v1/borrower/apply': () => (created ? refusal(409, 'open_order_exists', 'You already have an open order.') : ok(KFS_IN)),
      'POST /api/v1/borrower/orders': () => {
        created = true;
        return Promise.reject(new TypeError('Failed to fetch'));
      },
    });
    const user = userEvent.setup();
    await confirmWithAnswerLost(user);
    // Only the borrower's id names it: no phone number is kept.
    expect(keptNames().join(' ')).not.toContain('3210');

    // Someone else is signed in in this tab, and has an open order of the same loan.
    me = { ...ME_IN, id: 'b-2', phoneMasked: '+91 ******1111' };
    renderBorrower(CONFIRM_URL);
    expect(await screen.findByRole('alert')).toHaveTextContent('You already have a loan in progress');
    expect(api.callsTo('POST', '/api/v1/borrower/orders')).toHaveLength(1);
    // The first borrower's confirmation stays theirs, named by their id.
    expect(JSON.parse(window.sessionStorage.getItem(SENT_B1)!)).toMatchObject({ borrower: 'b-1', amount: 600000 });
  });

  it('is forgotten at log-out, with every key kept for an application or a payment', async () => {
    const api = confirming({ 'POST /api/v1/borrower/orders': () => Promise.reject(new TypeError('Failed to fetch')) });
    const user = userEvent.setup();
    await confirmWithAnswerLost(user);
    window.sessionStorage.setItem('kilat.pay:KL-261123-7F3K9Q:due:upi:346800:2026-12-06', 'pay-key-0001');
    expect(keptNames()).toHaveLength(3);

    renderBorrower('/app/me?lang=1');
    await user.click(await screen.findByRole('button', { name: 'Log out' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Log in' })).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/borrower/logout')).toHaveLength(1);
    expect(keptNames()).toEqual([]);
    // What is not the borrower's stays: the market of this visit.
    expect(window.sessionStorage.getItem('kilat.market')).toBe('in');
  });

  it('is forgotten when the session ends (401)', async () => {
    let signedIn = true;
    confirming({
      'GET /api/v1/borrower/me': () => (signedIn ? ok(ME_IN) : refusal(401, 'unauthorized', 'Please log in again.', { headers: { 'X-Signed-Out': 'expired' } })),
      'POST /api/v1/borrower/orders': () => Promise.reject(new TypeError('Failed to fetch')),
    });
    const user = userEvent.setup();
    await confirmWithAnswerLost(user);
    expect(keptNames()).toHaveLength(2);

    signedIn = false;
    renderBorrower(CONFIRM_URL);
    await waitFor(() => expect(window.location.pathname).toBe('/app/login'));
    expect(keptNames()).toEqual([]);
  });
});

describe('applying is refused before the statement is shown', () => {
  it.each([
    [409, 'certification_incomplete', 'Complete your details first', 'Complete my details', '/app/certification'],
    [409, 'open_order_exists', 'You already have a loan in progress', 'See my loans', '/app/orders'],
    [403, 'not_eligible', 'You cannot borrow right now', 'Check my details', '/app/certification'],
    [422, 'cap_exceeded', 'This amount or term cannot be offered', 'Choose another amount or term', '/app/products/in-flexi-14d?amount=600000&term=14dx3'],
  ])('%i %s', async (status, code, title, action, href) => {
    const api = confirming({ 'POST /api/v1/borrower/apply': () => refusal(status, code, `Server says ${code}.`) });
    renderBorrower(CONFIRM_URL);
    const notice = await screen.findByRole('alert');
    expect(notice).toHaveTextContent(title);
    expect(screen.getByRole('link', { name: action })).toHaveAttribute('href', href);
    expect(screen.queryByText('83.87%')).toBeNull();
    expect(screen.queryByRole('checkbox')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
    expect(api.callsTo('POST', '/api/v1/borrower/orders')).toHaveLength(0);
  });

  it('shows the server’s reason when the income is too low', async () => {
    confirming({ 'POST /api/v1/borrower/apply': () => refusal(403, 'not_eligible', 'Your monthly income must be at least ₹12,000.') });
    renderBorrower(CONFIRM_URL);
    expect(await screen.findByRole('alert')).toHaveTextContent('Your monthly income must be at least ₹12,000.');
  });

  it('shows the field errors of an amount the product does not lend, with the way back', async () => {
    confirming({
      'POST /api/v1/borrower/apply': () =>
        refusal(422, 'validation_failed', 'Some fields need fixing.', { fields: { amount: 'The amount goes up in steps of ₹1,000.' } }),
    });
    const user = userEvent.setup();
    renderBorrower(CONFIRM_URL);
    expect(await screen.findByRole('alert')).toHaveTextContent('Some fields need fixing. The amount goes up in steps of ₹1,000.');
    await user.click(screen.getByRole('link', { name: 'Choose another amount or term' }));
    expect(window.location.pathname).toBe('/app/products/in-flexi-14d');
  });

  it('offers a retry when the server could not be reached', async () => {
    let fail = true;
    confirming({ 'POST /api/v1/borrower/apply': () => (fail ? refusal(503, 'internal', 'Service unavailable.') : ok(KFS_IN)) });
    const user = userEvent.setup();
    renderBorrower(CONFIRM_URL);
    expect(await screen.findByRole('alert')).toHaveTextContent('The Key Fact Statement could not be prepared.');
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('83.87%')).toBeInTheDocument();
  });
});
