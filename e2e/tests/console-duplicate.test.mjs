// Issue 18, item 5: two borrowers certify in India with the same PAN (nothing else shared). The reviewer opens the
// second one's application and sees the duplicate flagged first on the page, naming the field and linking to the
// first borrower's order, found by keyed hash without decrypting anything. Screenshots go to e2e/out/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { outDir } from '../lib/browser.mjs';
import { BORROWER_MARKETS, applyForLoan } from '../lib/borrower.mjs';
import { DESKTOP, openConsole } from '../lib/console.mjs';
import { JOURNEY, useSite } from '../lib/fixture.mjs';

const site = useSite();

const india = BORROWER_MARKETS.india;
/** A second Indian borrower: another phone, other contacts and account, the same PAN. */
const secondWithSamePan = {
  ...india,
  phone: '91234 56781',
  e164: '+919123456781',
  values: {
    ...india.values,
    fullName: 'Bina Shah',
    contacts: [['Kiran Shah', '98333 44455'], ['Tara Joshi', '98444 55566']],
    account: '600200345678',
    accountShown: '6002 0034 5678',
  },
};

test('a reviewer sees the same PAN on another borrower flagged on the second application', { ...JOURNEY, timeout: 300_000 }, async (tc) => {
  let first;
  await site.page(tc, async (borrower) => {
    first = await applyForLoan(borrower, site, india);
  });
  let second;
  await site.page(tc, async (borrower) => {
    second = await applyForLoan(borrower, site, secondWithSamePan);
  });

  await site.page(tc, DESKTOP, async (page) => {
    await openConsole(page, site, `/orders/${encodeURIComponent(second.orderNo)}`);
    await page.getByRole('heading', { level: 1, name: new RegExp(second.orderNo) }).waitFor();
    const flag = page.getByRole('region', { name: /^Possible duplicate/ });
    await flag.waitFor();
    const items = flag.getByRole('listitem');
    assert.equal(await items.count(), 1, await flag.textContent());
    assert.match(await items.first().textContent(), /^ID number \(PAN\/NIK\) is the ID number \(PAN\/NIK\) of another borrower \(India\)/);
    const link = items.first().getByRole('link', { name: `open ${first.orderNo}` });
    await page.screenshot({ path: path.join(outDir, 'console-duplicate-flag.png'), fullPage: true });

    // The link opens the first borrower's application, which flags the second one back.
    await link.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: new RegExp(first.orderNo) }).waitFor();
    await page.getByRole('region', { name: /^Possible duplicate/ }).getByRole('link', { name: `open ${second.orderNo}` }).waitFor();
  });
});
