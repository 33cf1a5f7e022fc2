// The operator's side of the journeys, through the console's own pages at a desk's size (1280×800): sign in as the
// demo admin `kilat serve` prints in development (every role), approve in the order view, pay out in Payouts, confirm
// a payment in Repayments. Each step waits for the console's own answer, never for a fixed time.
import assert from 'node:assert/strict';

/** A desktop browser window: the console is built for operators at a desk. */
export const DESKTOP = { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, isMobile: false, hasTouch: false };

/** The demo admin's password, from the line `kilat serve` prints once in development. */
export function adminPassword(site) {
  const match = /^Console: http:\/\/\S+\/console\/ as admin, password (\S+) /m.exec(site.server.output());
  assert.ok(match, `kilat serve printed no demo admin line:\n${site.server.output().slice(-2000)}`);
  return match[1];
}

/** Opens `path` of the console in `page`; signs in as the demo admin when the console asks for it. */
export async function openConsole(page, site, path) {
  await page.goto(site.url(`/console${path}`), { waitUntil: 'load' });
  const signIn = page.getByRole('heading', { level: 1, name: 'Sign in' });
  const signedIn = page.getByRole('navigation', { name: 'Console sections' });
  await signIn.or(signedIn).first().waitFor();
  if (await signIn.isVisible()) {
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(adminPassword(site));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await signedIn.waitFor();
  }
}

/** A section of the console by its navigation link, once its heading shows. */
export async function section(page, name) {
  await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name }).click();
  await page.getByRole('heading', { level: 1, name }).waitFor();
}

/** The reviewer approves `orderNo` in its order view, with a note for the team and the confirmation step. */
export async function approveInConsole(page, site, orderNo, reason = 'Income and bank account verified.') {
  await openConsole(page, site, `/orders/${encodeURIComponent(orderNo)}`);
  const heading = page.getByRole('heading', { level: 1, name: new RegExp(orderNo) });
  await heading.filter({ hasText: 'Pending review' }).waitFor();
  const decision = page.getByRole('region', { name: 'Decision' });
  await decision.getByLabel('Note for the team (never shown to the borrower)').fill(reason);
  await decision.getByRole('button', { name: 'Approve…' }).click();
  await decision.getByRole('group').getByRole('button', { name: 'Yes, approve' }).click();
  await page.getByRole('status').filter({ hasText: `${orderNo} is approved.` }).waitFor();
  await heading.filter({ hasText: 'Approved' }).waitFor();
}

/** Finance pays `orderNo` out in Payouts (the tab of `market`) with `reference`, after the step that restates it. */
export async function payOutInConsole(page, orderNo, reference, market = 'India') {
  await section(page, 'Payouts');
  await page.getByRole('link', { name: market, exact: true }).click();
  const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: orderNo }) });
  await row.waitFor();
  await row.getByRole('button', { name: `Pay out ${orderNo}` }).click();
  await row.getByLabel('Bank reference of the transfer').fill(reference);
  await row.getByRole('button', { name: 'Continue' }).click();
  assert.ok((await row.getByRole('group').textContent()).includes(`for ${orderNo} with bank reference ${reference}`));
  await row.getByRole('button', { name: /^Pay out (₹|Rp)/ }).click();
  await page.getByRole('status').filter({ hasText: `${orderNo} paid out` }).waitFor();
}

/** A fact of a payment in Repayments by its label: "Amount asked", "Amount received", "Difference"… */
export function paymentFact(item, label) {
  return item.locator('.facts > div').filter({ has: item.page().locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');
}

/** An amount as the console shows it (`₹2,072.50`, `Rp 1.050.000`) → what finance types (`2072.50`, `1050000`). */
export function typedAmount(text) {
  const rupiah = /Rp/.test(text);
  const plain = text.replace(/[^\d.,]/g, '');
  return rupiah ? plain.replace(/\./g, '').replace(',', '.') : plain.replace(/,/g, '');
}

/**
 * Finance confirms the payment with `reference` in Repayments, typing the amount the bank statement shows (here the
 * amount asked: the field is never prefilled); answers the amount the confirmation states. `shot` runs with the
 * confirmation on screen.
 */
export async function confirmInConsole(page, reference, { utr, shot = async () => {} } = {}) {
  await section(page, 'Repayments');
  const item = page.getByRole('listitem').filter({ hasText: reference });
  await item.waitFor();
  if (utr) assert.match(await item.textContent(), new RegExp(utr));
  const asked = (await paymentFact(item, 'Amount asked').textContent()).trim();
  await item.getByRole('button', { name: 'Confirm', exact: true }).click();
  const field = item.getByLabel(/^Amount received/);
  assert.equal(await field.inputValue(), '', 'the amount received is typed, never prefilled');
  await field.fill(typedAmount(asked));
  await item.getByRole('button', { name: 'Continue' }).click();
  const button = item.getByRole('button', { name: /^Confirm (₹|Rp)/ });
  await button.waitFor();
  await shot();
  const amount = (await button.textContent()).replace(/^Confirm\s*/, '');
  await button.click();
  await page.getByRole('status').filter({ hasText: `${reference}: ` }).filter({ hasText: 'credited to the loan' }).waitFor();
  return amount;
}
