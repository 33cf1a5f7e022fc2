// axe (WCAG 2.1 A and AA) on every screen of the console at a laptop's size (1366×768): the sign-in, every section
// the demo admin opens, an order view, the operators screen with its markets; then an operator of India only whom the
// admin creates there: "Choose your own password" right after their first sign-in, and every section of theirs, whose
// market tabs offer India only. Screenshots of the navigation go to e2e/out/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { expectNoAxeViolations } from '../lib/axe.mjs';
import { outDir } from '../lib/browser.mjs';
import { BORROWER_MARKETS, applyForLoan } from '../lib/borrower.mjs';
import { adminPassword } from '../lib/console.mjs';
import { JOURNEY, useSite } from '../lib/fixture.mjs';

const site = useSite();

/** A laptop: the smallest desk the console is built for. */
const LAPTOP = { viewport: { width: 1366, height: 768 }, deviceScaleFactor: 1, isMobile: false, hasTouch: false };

const ADMIN_SECTIONS = ['Review queue', 'Collections', 'Complaints', 'Contact messages', 'Payouts', 'Repayments', 'Reconciliation', 'Dashboard', 'Audit trail', 'Products', 'Operators', 'FAQ', 'Site'];
const INDIA_SECTIONS = ['Review queue', 'Collections', 'Complaints', 'Contact messages', 'Payouts', 'Repayments', 'Reconciliation', 'Dashboard', 'Audit trail'];

/** The page at the laptop's size and at a desktop's (1920×1080), then back to the laptop's. */
async function shot(page, name) {
  await page.screenshot({ path: path.join(outDir, `console-axe-${name}-1366.png`) });
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.screenshot({ path: path.join(outDir, `console-axe-${name}-1920.png`) });
  await page.setViewportSize(LAPTOP.viewport);
}

/** Waits until the page shows no loading state (each screen's `Loading…` status) any more. */
async function settled(page) {
  await page.waitForFunction(() => ![...document.querySelectorAll('[role="status"].loading')].length, null, { timeout: 15_000 });
}

async function signIn(page, username, password) {
  await page.goto(site.url('/console/'), { waitUntil: 'load' });
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Every section in the navigation, in its order: each opened by its link, settled, and checked by axe. */
async function everySection(page, expected, who) {
  const nav = page.getByRole('navigation', { name: 'Console sections' });
  await nav.waitFor();
  assert.deepEqual(await nav.getByRole('link').allTextContents(), expected);
  // The navigation fits the laptop's height and the page keeps most of its width.
  const box = await nav.boundingBox();
  assert.ok(box.width < 260, `the navigation is ${box.width}px wide`);
  for (const name of expected) {
    await nav.getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { level: 1, name }).waitFor();
    await settled(page);
    await expectNoAxeViolations(page, `${who}: ${name}`);
  }
}

test('every console screen passes axe at 1366×768, for the admin and for an operator of India only', { ...JOURNEY, timeout: 300_000 }, async (tc) => {
  const market = BORROWER_MARKETS.india;
  let orderNo;
  await site.page(tc, async (borrower) => {
    ({ orderNo } = await applyForLoan(borrower, site, market));
  });

  await site.page(tc, LAPTOP, async (page) => {
    // The sign-in, and a refusal on it.
    await page.goto(site.url('/console/'), { waitUntil: 'load' });
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await expectNoAxeViolations(page, 'sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Enter your username.').waitFor();
    await expectNoAxeViolations(page, 'sign-in with its field errors');

    await signIn(page, 'admin', adminPassword(site));
    await page.getByRole('navigation', { name: 'Console sections' }).waitFor();
    await shot(page, 'admin');
    // Keyboard: the first Tab reaches the skip link, which moves to the page.
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to the page' });
    assert.equal(await skip.evaluate((el) => el === document.activeElement), true);
    await everySection(page, ADMIN_SECTIONS, 'admin');

    // An order view, as the admin (every role) sees it.
    await page.getByRole('searchbox', { name: 'Open an order by its number' }).fill(orderNo);
    await page.getByRole('button', { name: 'Open', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: new RegExp(orderNo) }).waitFor();
    await settled(page);
    await expectNoAxeViolations(page, 'order view');

    // The admin creates an operator of India only, with the roles of a day's work.
    const nav = page.getByRole('navigation', { name: 'Console sections' });
    await nav.getByRole('link', { name: 'Operators', exact: true }).click();
    const form = page.getByRole('form', { name: 'New operator' });
    await form.getByLabel('Username').fill('priya');
    await form.getByLabel(/Initial password/).fill('set by the admin 1');
    for (const role of ['reviewer', 'finance', 'support', 'collections']) await form.getByRole('checkbox', { name: role, exact: true }).check();
    await form.getByRole('group', { name: 'Markets of the new operator' }).getByRole('checkbox', { name: 'Indonesia' }).uncheck();
    await form.getByRole('button', { name: 'Create operator' }).click();
    await page.getByRole('status').filter({ hasText: 'priya was created.' }).waitFor();
    await expectNoAxeViolations(page, 'operators with a new one');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();

    // Priya's first sign-in: her own password first, checked by axe with a field error too.
    await signIn(page, 'priya', 'set by the admin 1');
    await page.getByRole('heading', { level: 1, name: 'Choose your own password' }).waitFor();
    await expectNoAxeViolations(page, 'choose your own password');
    await page.getByLabel('Password you signed in with').fill('set by the admin 1');
    await page.getByLabel('New password', { exact: true }).fill('priya chose this one');
    await page.getByLabel('New password again').fill('priya chose this 1');
    await page.getByRole('button', { name: 'Save my password' }).click();
    await page.getByText('The two new passwords are not the same.').waitFor();
    await expectNoAxeViolations(page, 'choose your own password, with an error');
    await shot(page, 'own-password');
    await page.getByLabel('New password again').fill('priya chose this one');
    await page.getByRole('button', { name: 'Save my password' }).click();
    await page.getByRole('navigation', { name: 'Console sections' }).waitFor();
    await shot(page, 'india');
    await everySection(page, INDIA_SECTIONS, 'priya (India)');

    // Her market tabs offer India only; the order view of India opens.
    await nav.getByRole('link', { name: 'Review queue', exact: true }).click();
    const tabs = page.getByRole('navigation', { name: 'Market' });
    await tabs.waitFor();
    assert.deepEqual((await tabs.getByRole('link').allTextContents()).map((t) => t.replace(/ \(\d+\)$/, '')), ['India']);
    await page.getByRole('link', { name: orderNo }).click();
    await page.getByRole('heading', { level: 1, name: new RegExp(orderNo) }).waitFor();
    await settled(page);
    await expectNoAxeViolations(page, 'order view (priya)');
  });
});
