import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, ok, refusal, renderBorrower } from '@/test/render-borrower';
import { PRODUCT_ID, PRODUCT_IN, PRODUCT_IN_EMI } from '../products/fixtures.test-data';
import { ORDER_DETAIL, ORDER_DISBURSED, REPAYMENT_DUE } from '../orders/fixtures.test-data';
import { HOME_ELIGIBLE, HOME_NEW, HOME_OPEN_ORDER } from './fixtures.test-data';

const section = (name: string) => screen.getByRole('heading', { level: 2, name }).closest('section')!;

describe('home screen', () => {
  it('shows a new borrower how far their details are, why they cannot apply yet, and the loans on offer', async () => {
    fakeApi({ 'GET /api/v1/borrower/home': () => ok(HOME_NEW) }).signIn();
    renderBorrower('/app/home?lang=1');
    expect(screen.getByText('Loading…')).toBeInTheDocument();

    expect(await screen.findByText('Signed in as +91 ******3210')).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1, name: 'Home' })).toBeInTheDocument();

    const details = section('Your details');
    expect(within(details).getByRole('progressbar', { name: '1 of 5 steps done' })).toHaveAttribute('aria-valuenow', '1');
    expect(within(details).getByRole('link', { name: 'Continue with my details' })).toHaveAttribute('href', '/app/certification');

    const apply = section('You cannot apply yet');
    expect(apply).toHaveTextContent('Your details are not complete yet. The lender needs them before you can apply.');
    expect(within(apply).getByRole('link', { name: 'Complete my details' })).toHaveAttribute('href', '/app/certification');
    expect(within(apply).queryByRole('link', { name: /lowest APR/ })).toBeNull();

    const offers = section('Loans on offer');
    expect(within(offers).getAllByRole('article').map((card) => card.getAttribute('aria-labelledby'))).toEqual([
      'product-in-flexi-14d',
      'product-in-flexi-6m',
    ]);
    expect(within(offers).getByRole('link', { name: 'Flexi EMI' })).toHaveAttribute('href', '/app/products/in-flexi-6m');
    expect(screen.queryByRole('heading', { name: 'Your current loan' })).toBeNull();
  });

  it('says so when the borrower may apply, with the loans for them', async () => {
    fakeApi({ 'GET /api/v1/borrower/home': () => ok(HOME_ELIGIBLE) }).signIn();
    const user = userEvent.setup();
    renderBorrower('/app/home?lang=1');
    const apply = (await screen.findByRole('heading', { level: 2, name: 'You can apply now' })).closest('section')!;
    expect(within(section('Your details')).getByText('5 of 5 steps done')).toBeInTheDocument();
    expect(within(section('Your details')).getByRole('link', { name: 'Review my details' })).toHaveAttribute('href', '/app/certification');
    await user.click(within(apply).getByRole('link', { name: 'Loans for you, lowest APR first' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Loans for you' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/app/recommend');
  });

  it('shows the loan in progress, links to it, and explains why another cannot be applied for', async () => {
    fakeApi({
      'GET /api/v1/borrower/home': () => ok(HOME_OPEN_ORDER),
      'GET /api/v1/borrower/orders/KL-261123-7F3K9Q': () => ok(ORDER_DETAIL),
    }).signIn();
    renderBorrower('/app/home?lang=1');
    const order = (await screen.findByRole('heading', { level: 2, name: 'Your current loan' })).closest('section')!;
    expect(order).toHaveTextContent('Under review');
    // At the precision of the loan's statement, as on its page.
    expect(await within(order).findByText('₹6,000.00')).toBeInTheDocument();
    expect(order).toHaveTextContent('Loan number KL-261123-7F3K9Q');
    expect(order).toHaveTextContent('Applied on 23 Nov 2026');
    expect(within(order).getByRole('link', { name: 'See this loan' })).toHaveAttribute('href', '/app/orders/KL-261123-7F3K9Q');

    const apply = section('You cannot apply yet');
    expect(apply).toHaveTextContent('You have a loan in progress. You can apply for another once it has ended.');
    expect(within(apply).getByRole('link', { name: 'See my current loan' })).toHaveAttribute('href', '/app/orders/KL-261123-7F3K9Q');
  });

  it('draws a paid-out loan with its money at once, never pushing the page down once it is on screen', async () => {
    const NO = 'KL-261123-7F3K9Q';
    let answerMoney: (answer: Response) => void = () => {};
    const api = fakeApi({
      'GET /api/v1/borrower/home': () => ok({ ...HOME_OPEN_ORDER, openOrder: { ...HOME_OPEN_ORDER.openOrder, status: 'disbursed' } }),
      [`GET /api/v1/borrower/orders/${NO}`]: () => ok(ORDER_DISBURSED),
      [`GET /api/v1/borrower/orders/${NO}/repayment`]: () => new Promise<Response>((resolve) => (answerMoney = resolve)),
    });
    api.signIn();
    renderBorrower('/app/home?lang=1');
    // Home and the order have answered; what is due has not: nothing is drawn yet.
    await waitFor(() => expect(api.callsTo('GET', `/api/v1/borrower/orders/${NO}/repayment`)).toHaveLength(1));
    await waitFor(() => expect(api.callsTo('GET', `/api/v1/borrower/orders/${NO}`)).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByRole('heading', { level: 2, name: 'Your current loan' })).toBeNull();
    expect(screen.getByText('Loading…')).toBeInTheDocument();

    answerMoney(ok(REPAYMENT_DUE));
    const order = (await screen.findByRole('heading', { level: 2, name: 'Your current loan' })).closest('section')!;
    // Drawn with the card, not after it.
    expect(within(order).getByRole('link', { name: 'Pay ₹2,072.00' })).toHaveAttribute('href', `/app/orders/${NO}/pay/due`);
  });

  it('draws a paid-out loan without its money when that failed, and does not ask again and again', async () => {
    const NO = 'KL-261123-7F3K9Q';
    const api = fakeApi({
      'GET /api/v1/borrower/home': () => ok({ ...HOME_OPEN_ORDER, openOrder: { ...HOME_OPEN_ORDER.openOrder, status: 'disbursed' } }),
      [`GET /api/v1/borrower/orders/${NO}`]: () => ok(ORDER_DISBURSED),
      [`GET /api/v1/borrower/orders/${NO}/repayment`]: () => refusal(500, 'internal', 'Something went wrong.'),
    });
    api.signIn();
    renderBorrower('/app/home?lang=1');
    const order = (await screen.findByRole('heading', { level: 2, name: 'Your current loan' })).closest('section')!;
    expect(within(order).getByRole('link', { name: 'See this loan' })).toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 200));
    // Home's own question, and at most once more as the card's money mounts.
    expect(api.callsTo('GET', `/api/v1/borrower/orders/${NO}/repayment`).length).toBeLessThanOrEqual(2);
    expect(screen.getByRole('heading', { level: 2, name: 'Your current loan' })).toBeInTheDocument();
  });

  it('turns every reason into a sentence, a reason it does not know included', async () => {
    fakeApi({
      'GET /api/v1/borrower/home': () =>
        ok({ ...HOME_ELIGIBLE, eligible: false, reasons: ['income_below_minimum', 'sanctions_check'], products: [] }),
    }).signIn();
    renderBorrower('/app/home?lang=1');
    const apply = (await screen.findByRole('heading', { level: 2, name: 'You cannot apply yet' })).closest('section')!;
    expect(within(apply).getAllByRole('listitem').map((item) => item.querySelector('p')!.textContent)).toEqual([
      'The income in your details is below the minimum the lender can lend to.',
      'You cannot apply for a loan right now.',
    ]);
    expect(within(apply).getByRole('link', { name: 'Check my job and income' })).toHaveAttribute('href', '/app/certification');
    expect(within(section('Loans on offer')).getByText(/no loans on offer in your country/)).toBeInTheDocument();
  });

  it('speaks Indonesian with rupiah for Indonesia', async () => {
    fakeApi({ 'GET /api/v1/borrower/home': () => ok({ ...HOME_NEW, market: 'ID', certification: { ...HOME_NEW.certification, done: 0 }, products: [PRODUCT_ID] }) }).signIn();
    renderBorrower('/app/home?lang=2');
    expect(await screen.findByRole('heading', { level: 1, name: 'Beranda' })).toBeInTheDocument();
    expect(await screen.findByText('0 dari 5 langkah selesai')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Isi data diri saya' })).toHaveAttribute('href', '/app/certification');
    expect(screen.getByRole('article', { name: 'Kilat 30' })).toHaveTextContent(/Rp\s1\.000\.000 sampai Rp\s5\.000\.000/);
  });

  it('shows an error state with a retry', async () => {
    let fail = true;
    fakeApi({ 'GET /api/v1/borrower/home': () => (fail ? refusal(503, 'internal', 'Service unavailable.') : ok(HOME_NEW)) }).signIn();
    const user = userEvent.setup();
    renderBorrower('/app/home?lang=1');
    expect(await screen.findByRole('alert')).toHaveTextContent('Your home page could not be loaded.');
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('Signed in as +91 ******3210')).toBeInTheDocument();
  });
});

describe('loans for you', () => {
  it('lists the loans the borrower may apply for, the lowest APR first', async () => {
    const cheap = { ...PRODUCT_IN, code: 'cheap', name: 'Cheap', sample: { ...PRODUCT_IN.sample, apr: 2400, aprDisplay: '24.00%' } };
    fakeApi({ 'GET /api/v1/borrower/products/recommended': () => ok({ eligible: true, reasons: [], products: [PRODUCT_IN, PRODUCT_IN_EMI, cheap] }) }).signIn();
    renderBorrower('/app/recommend?lang=1');
    expect(await screen.findByText('The loans you can apply for now, the lowest annual percentage rate (APR) first.')).toBeInTheDocument();
    const names = screen.getAllByRole('article').map((card) => within(card).getByRole('heading').textContent);
    expect(names).toEqual(['Cheap', 'Flexi EMI', 'Flexi 6 Weeks']);
    expect(screen.getByRole('article', { name: 'Cheap' })).toHaveTextContent('APR 24.00%');
    expect(screen.getByRole('button', { name: 'Back' })).toBeInTheDocument();
  });

  it('gives the reasons with their links when the borrower may not apply', async () => {
    fakeApi({
      'GET /api/v1/borrower/products/recommended': () => ok({ eligible: false, reasons: ['certification_incomplete', 'open_order'], products: [] }),
    }).signIn();
    renderBorrower('/app/recommend?lang=1');
    expect(await screen.findByRole('heading', { level: 2, name: 'You cannot apply yet' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Complete my details' })).toHaveAttribute('href', '/app/certification');
    expect(screen.getByRole('link', { name: 'See my current loan' })).toHaveAttribute('href', '/app/orders');
    expect(screen.queryByRole('article')).toBeNull();
  });

  it('has an empty state and an error state', async () => {
    let answer = () => refusal(500, 'internal', 'Something went wrong on our side.');
    fakeApi({ 'GET /api/v1/borrower/products/recommended': () => answer() }).signIn();
    const user = userEvent.setup();
    renderBorrower('/app/recommend?lang=1');
    expect(await screen.findByRole('alert')).toHaveTextContent('The loans for you could not be loaded.');
    answer = () => ok({ eligible: true, reasons: [], products: [] });
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { name: 'No loans on offer' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to home' })).toHaveAttribute('href', '/app/home');
  });
});
