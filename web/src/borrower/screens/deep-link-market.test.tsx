// A signed-in borrower who opens a deep link without `?lang=1` (a bookmark, a shared link, a new tab, whose
// sessionStorage is empty) starts on the default, Indonesian app. Their loan's money is in its own currency from the
// first screen, and the page opens again in their market, in their language.
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, ok, renderBorrower } from '@/test/render-borrower';
import { pageLocation } from '../ui/use-borrower-market';
import { ORDER_EMI } from './orders/fixtures.test-data';

const NO = ORDER_EMI.orderNo;
const ORDER = `/api/v1/borrower/orders/${NO}`;
const REPAYMENT = {
  orderNo: NO,
  status: 'disbursed',
  currency: 'INR',
  today: '2026-11-29',
  outstanding: 1040261,
  verifying: false,
  choices: [
    { choice: 'due', amount: 346800, installment: 1, dueDate: '2026-12-27' },
    { choice: 'payoff', amount: 1001333, installment: null, dueDate: null },
  ],
  arrears: null,
  coolingOff: null,
  verifyingPayment: null,
};
const BANK_TRANSFER = {
  method: 'bank_transfer',
  payeeName: 'Kilat Finance',
  collectsFor: null,
  upiId: null,
  upiUri: null,
  bankName: 'Axis Bank',
  accountNumber: '912020012345678',
  ifsc: 'UTIB0000123',
  bankCode: null,
  virtualAccount: null,
  channels: [],
  expiresAt: null,
};
const PAYMENT = {
  paymentId: 'pay-1',
  orderNo: NO,
  choice: 'due',
  method: 'bank_transfer',
  amount: 346800,
  currency: 'INR',
  pricedOn: '2026-11-29',
  status: 'pending',
  reference: 'KPAB12CD34EF',
  utr: null,
  reason: null,
  receivedAmount: null,
  refundAmount: null,
  refundReference: null,
  instructions: BANK_TRANSFER,
  createdAt: Date.UTC(2026, 10, 29, 6),
};

const bodyText = () => document.body.textContent ?? '';

describe('a deep link opened without the market', () => {
  it.each([
    [`/app/orders/${NO}`, () => screen.findByText('Your next installment: ₹3,468.00, due 27 Dec 2026.')],
    [`/app/orders/${NO}/pay/due`, () => screen.findByRole('button', { name: 'Pay ₹3,468.00' })],
    ['/app/payments/pay-1', () => screen.findByRole('heading', { name: 'Transfer ₹3,468.00 to the collection account' })],
  ])('%s shows an Indian borrower’s loan in rupees, then in English', async (path, findEnglish) => {
    // jsdom cannot load another page: the reload the app asks for is recorded, and the test opens that URL itself.
    const reload = vi.spyOn(pageLocation, 'replace').mockImplementation(() => undefined);
    fakeApi({
      [`GET ${ORDER}`]: () => ok(ORDER_EMI),
      [`GET ${ORDER}/repayment`]: () => ok(REPAYMENT),
      'GET /api/v1/borrower/payment-types': () => ok([BANK_TRANSFER]),
      'GET /api/v1/borrower/payments/pay-1': () => ok(PAYMENT),
    }).signIn();

    // No `lang`, nothing remembered: the app starts in Indonesia, the borrower (GET /me) is Indian.
    const first = renderBorrower(path);
    expect(first.app.market.id).toBe('id');
    // The loan's amounts are rupees even before the page opens again: never "Rp 3.468,00".
    await waitFor(() => expect(bodyText()).toContain('₹3,468.00'));
    expect(bodyText()).not.toContain('Rp');
    // The page asks to open again in India, at the same screen.
    await waitFor(() => expect(reload).toHaveBeenCalledTimes(1));
    const again = new URL(reload.mock.calls[0]![0]);
    expect(again.pathname).toBe(path);
    expect(again.searchParams.get('lang')).toBe('1');
    first.unmount();

    // The browser opens it: English, rupees, and no further reload.
    const second = renderBorrower(`${again.pathname}${again.search}`);
    expect(second.app.market.id).toBe('in');
    expect(second.app.i18n.language).toBe('en');
    expect(await findEnglish()).toBeInTheDocument();
    expect(bodyText()).not.toContain('Rp');
    expect(reload).toHaveBeenCalledTimes(1);
  });
});
