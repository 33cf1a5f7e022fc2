// Answers of the home and recommendations API as docs/API-BORROWER.md describes them.
import { PRODUCT_IN, PRODUCT_IN_EMI } from '../products/fixtures.test-data';

/** A new borrower: one step of five done, so they may not apply yet. */
export const HOME_NEW = {
  market: 'IN',
  phoneMasked: '+91 ******3210',
  lenderName: 'Kilat Finance Private Limited (NBFC)',
  certification: { complete: false, next: 'personal', done: 1, total: 5 },
  openOrder: null,
  eligible: false,
  reasons: ['certification_incomplete'],
  products: [PRODUCT_IN, PRODUCT_IN_EMI],
};

/** Details complete, no loan running: may apply. */
export const HOME_ELIGIBLE = {
  ...HOME_NEW,
  certification: { complete: true, next: null, done: 5, total: 5 },
  reasons: [],
  eligible: true,
};

/** A loan under review: may not apply for another. */
export const HOME_OPEN_ORDER = {
  ...HOME_ELIGIBLE,
  eligible: false,
  reasons: ['open_order'],
  openOrder: { orderNo: 'KL-261123-7F3K9Q', status: 'pending_review', amount: 600000, createdAt: Date.UTC(2026, 10, 23, 8, 30) },
};
