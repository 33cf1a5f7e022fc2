// Accessibility of every borrower screen (issue 19, "Done when"): axe-core's WCAG 2.1 A and AA rules find nothing on
// any screen of the app, in both markets and languages, at a 390×844 phone: sign-in, home, the certification and
// its five steps, products, the KFS with the agreement, the loans, one loan under review and paid out, its agreement,
// the plan and an installment, the repayment choices, the extension, a payment, customer service, complaints (list and
// new), the account and its pages (bank account, account deletion, about, privacy, the agreement), and the error and
// not-found notices. Every screen is checked before the journey fails, so one run lists everything to fix.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { axeViolations } from '../lib/axe.mjs';
import { BORROWER_MARKETS, applyForLoan, consoleSession } from '../lib/borrower.mjs';
import { JOURNEY, useSite } from '../lib/fixture.mjs';

const site = useSite();
const PHONE_390 = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 1 };

/** Runs axe on the page as it is and keeps what it finds under `label`. */
function checker(page, found, name) {
  return async (label) => {
    // Screens draw after their calls: let them settle (and the antd-mobile transitions end) before axe reads colours.
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(350);
    const violations = await axeViolations(page);
    for (const v of violations) {
      found.push(`${name} · ${label} (${new URL(page.url()).pathname}): ${v.id} (${v.impact}): ${v.help}\n      ${v.targets.join('\n      ')}`);
    }
    return violations.length;
  };
}

/** Opens `path` (under /app) and waits for its title (the h1) before checking it. */
async function visit(page, market, check, label, path, { heading } = {}) {
  const sep = path.includes('?') ? '&' : '?';
  await page.goto(site.url(`/app${path}${market.lang ? `${sep}${market.lang.slice(1)}` : ''}`), { waitUntil: 'load' });
  if (heading) await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  else await page.getByRole('heading', { level: 1 }).first().waitFor();
  await check(label);
}

const MARKET_RUNS = {
  india: {
    market: { ...BORROWER_MARKETS.india, product: 'Flexi 6 Weeks', phone: '91234 56790', e164: '+919123456790' },
    approve: 'Documents in order.',
    reference: 'HDFC-NEFT-AXE01',
    payChoice: /Pay this installment/,
    method: /^UPI/,
    payButton: /^Pay ₹/,
  },
  indonesia: {
    market: { ...BORROWER_MARKETS.indonesia, phone: '0812-1111-2299', e164: '+6281211112299' },
    approve: 'Dokumen lengkap.',
    reference: 'BCA-TRF-AXE01',
    payChoice: /Bayar cicilan ini/,
    method: /Virtual account|Akun virtual/,
    payButton: /^Bayar Rp/,
  },
};

// The two markets' journeys are independent (their own borrower, order and pages on the one server) and mostly wait
// for screens to settle, so they run at once.
describe('every borrower screen, both markets at once', { concurrency: true }, () => {
  for (const [name, run] of Object.entries(MARKET_RUNS)) {
    const { market } = run;
    test(`axe finds no WCAG 2.1 AA violation on any borrower screen in ${name}`, { ...JOURNEY, timeout: 420_000 }, async (tc) => {
      const found = [];
      await site.page(tc, PHONE_390, async (page) => {
        const check = checker(page, found, name);
        const { orderNo } = await applyForLoan(page, site, market, { check });
        const no = encodeURIComponent(orderNo);

        // Under review: the loans, the loan, its agreement.
        await visit(page, market, check, 'loans', '/orders');
        await visit(page, market, check, 'loan under review', `/orders/${no}`);
        await visit(page, market, check, 'loan agreement', `/orders/${no}/agreement`);

        // Paid out: the loan, its plan and an installment, the choices, the extension, a payment.
        const ops = await consoleSession(site);
        await ops.post(`/orders/${no}/approve`, { reason: run.approve });
        await ops.post(`/orders/${no}/disburse`, { bankReference: run.reference });
        await visit(page, market, check, 'home with a loan', '/home');
        await visit(page, market, check, 'loan paid out', `/orders/${no}`);
        await page.locator('section.repay').waitFor();
        await check('loan paid out, repayment choices');
        await visit(page, market, check, 'plan', `/orders/${no}/plan`);
        await visit(page, market, check, 'installment', `/orders/${no}/plan/1`);
        await visit(page, market, check, 'extension', `/orders/${no}/extension`);
        await visit(page, market, check, 'pay the installment', `/orders/${no}/pay/due`);
        await visit(page, market, check, 'repay everything', `/orders/${no}/pay/payoff`);
        await page.getByRole('radio', { name: run.method }).first().check();
        await page.getByRole('button', { name: run.payButton }).click();
        await page.waitForURL(/\/app\/payments\/[^/?]+/);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        await check('payment');

        // Products and the KFS of one.
        await visit(page, market, check, 'products', '/products');

        // Support.
        await visit(page, market, check, 'customer service', '/customer-service');
        await visit(page, market, check, 'complaints', '/complaints');
        await visit(page, market, check, 'new complaint', '/complaints/new');

        // The account and its pages.
        await visit(page, market, check, 'account', '/me');
        await visit(page, market, check, 'bank account (locked while the loan is open)', '/bank-card');
        await visit(page, market, check, 'certification summary', '/certification');
        await visit(page, market, check, 'delete account', '/account/delete');
        await visit(page, market, check, 'about', '/about');
        await visit(page, market, check, 'privacy', '/privacy');
        await visit(page, market, check, 'agreement', '/agreement');
        await visit(page, market, check, 'not found', '/no-such-screen');
      });
      if (found.length > 0) tc.diagnostic(found.join('\n'));
      assert.deepEqual(found, [], `axe found WCAG 2.1 AA violations on ${found.length} screen element group(s)`);
    });
  }
});
