// What the loan journeys (tests/loan-life.test.mjs, tests/loan-dates.test.mjs) share: screenshots, amounts as the
// pages show them, the borrower's API from their page, a UTR submitted, the loan page, a new Indian borrower.
import assert from 'node:assert/strict';
import path from 'node:path';
import { outDir } from './browser.mjs';
import { BORROWER_MARKETS } from './borrower.mjs';

/** A full-page screenshot of the page as e2e/out/life-NAME.png. */
export async function shoot(page, name) {
  await page.screenshot({ path: path.join(outDir, `life-${name}.png`), fullPage: true });
}

/** Minor units of an amount as the page shows it: `₹10,020.50` (India) or `Rp 1.050.000,50` (Indonesia). */
export function minorOf(text, market = 'IN') {
  const plain = text.replace(/[^\d.,]/g, '');
  const [whole, fraction = ''] = market === 'IN' ? plain.replace(/,/g, '').split('.') : plain.replace(/\./g, '').split(',');
  assert.match(whole, /^\d+$/, `an amount: ${text}`);
  return Number(BigInt(whole) * 100n + BigInt(fraction.padEnd(2, '0')));
}

/** A borrower API read from the borrower's own page (its session cookie, same origin). */
export async function borrowerGet(page, apiPath) {
  return page.evaluate(async (p) => {
    const response = await fetch(p, { headers: { 'X-Requested-With': 'XMLHttpRequest' } });
    const body = await response.json();
    if (body.code !== 0) throw new Error(`${p}: ${JSON.stringify(body)}`);
    return body.data;
  }, apiPath);
}

/** The payment the app is on (`/app/payments/{id}`): its id, and its reference as the page shows it (UTR methods). */
export async function openPayment(page) {
  await page.waitForURL(/\/app\/payments\/[^/?]+/);
  const paymentId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop());
  return { paymentId };
}

/** Submits `utr` on the payment page the app is on; answers the payment's reference. */
export async function submitUtr(page, utr) {
  await openPayment(page);
  const reference = await page.locator('.copy-row').filter({ hasText: 'Reference' }).locator('.copy-row__value').textContent();
  assert.match(reference, /^KP[0-9A-Z]{10}$/);
  await page.getByLabel('UTR', { exact: true }).fill(utr);
  await page.getByRole('button', { name: 'Submit UTR' }).click();
  await page.getByRole('status').filter({ hasText: 'Transfer reported' }).first().waitFor();
  return reference;
}

/** A new Indian borrower: each journey its own phone, PAN and account, so all three share one server. */
export function indian(n, product) {
  const india = BORROWER_MARKETS.india;
  return {
    ...india,
    product,
    phone: `91234 5679${n}`,
    e164: `+91912345679${n}`,
    values: { ...india.values, idNumber: `ABCPE123${n}F`, account: `50100123456${n}`, accountShown: `5010 0123 456${n}` },
  };
}

/** The borrower's loan page on `site`, loaded afresh. */
export async function openLoanPage(site, page, orderNo, lang = '?lang=1') {
  await page.goto(site.url(`/app/orders/${encodeURIComponent(orderNo)}${lang}`), { waitUntil: 'load' });
  await page.getByText(new RegExp(`${orderNo}`)).first().waitFor();
}
