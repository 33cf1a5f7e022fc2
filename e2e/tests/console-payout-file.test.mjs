// A bulk payout file round trip (issue 18, item 1): two Indian borrowers apply on their phones and are approved; finance
// downloads India's bank bulk payment file from Payouts, the bank's result file is built from it (each line's
// reference, a UTR, "success" and the amount exactly as the file wrote it), finance imports it, every line answers
// "Paid out", and both loans start. The Payouts screen is captured at 1366×768 and 1920×1080.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { outDir } from '../lib/browser.mjs';
import { BORROWER_MARKETS, applyForLoan, consoleSession } from '../lib/borrower.mjs';
import { openConsole, section } from '../lib/console.mjs';
import { JOURNEY, useSite } from '../lib/fixture.mjs';

const site = useSite();

const SIZES = [
  { name: '1366', viewport: { width: 1366, height: 768 } },
  { name: '1920', viewport: { width: 1920, height: 1080 } },
];

/** A new Indian borrower with their own phone, PAN and account. */
function indian(n) {
  const india = BORROWER_MARKETS.india;
  return {
    ...india,
    product: 'Salary Advance',
    phone: `91234 5681${n}`,
    e164: `+91912345681${n}`,
    values: { ...india.values, idNumber: `ABCPE124${n}F`, account: `50100123457${n}`, accountShown: `5010 0123 457${n}` },
  };
}

/** The rows of a CSV the server wrote (no quoted line breaks in it). */
function csvRows(text) {
  return text
    .split('\r\n')
    .filter(Boolean)
    .map((line) => line.split(','));
}

test('India: the bank file is downloaded, its result imported, and the loans start', { ...JOURNEY, timeout: 300_000 }, async (tc) => {
  const orders = [];
  for (const n of [1, 2]) {
    await site.page(tc, async (phone) => {
      const { orderNo } = await applyForLoan(phone, site, indian(n));
      orders.push(orderNo);
    });
  }
  const ops = await consoleSession(site);
  for (const orderNo of orders) await ops.post(`/orders/${encodeURIComponent(orderNo)}/approve`, { reason: 'Documents in order.' });

  for (const size of SIZES) {
    await site.page(tc, { viewport: size.viewport, deviceScaleFactor: 1, isMobile: false, hasTouch: false, acceptDownloads: true }, async (page) => {
      await openConsole(page, site, '/');
      await section(page, 'Payouts');
      await page.getByRole('link', { name: 'India', exact: true }).click();
      await page.getByRole('table', { name: /approved orders? waiting for payout in India/ }).waitFor();
      await mkdir(outDir, { recursive: true });
      await page.screenshot({ path: path.join(outDir, `payout-file-list-${size.name}.png`), fullPage: false });
    });
  }

  await site.page(tc, { viewport: { width: 1366, height: 768 }, deviceScaleFactor: 1, isMobile: false, hasTouch: false, acceptDownloads: true }, async (page) => {
    await openConsole(page, site, '/');
    await section(page, 'Payouts');
    await page.getByRole('link', { name: 'India', exact: true }).click();
    for (const orderNo of orders) {
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: orderNo }) });
      await row.waitFor();
      // The beneficiary in full, with its copy buttons.
      assert.match(await row.textContent(), /Asha Verma/);
      assert.match(await row.textContent(), /HDFC Bank/);
      await row.getByRole('button', { name: `Copy Account number ${orderNo}` }).waitFor();
    }

    // The bank file, as the browser saves it.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download bank file' }).click()]);
    assert.match(download.suggestedFilename(), /^kilat-payouts-IN-\d{4}-\d{2}-\d{2}\.csv$/);
    const file = await readFile(await download.path(), 'utf8');
    const [header, ...lines] = csvRows(file);
    assert.deepEqual(header, ['Beneficiary Name', 'Beneficiary Account Number', 'IFSC', 'Amount (INR)', 'Payment Reference', 'Beneficiary Bank']);
    assert.deepEqual(lines.map((l) => l[4]).sort(), [...orders].sort());
    for (const line of lines) {
      assert.match(line[1], /^50100123457\d$/);
      assert.match(line[3], /^\d+\.\d{2}$/, 'rupees with two decimals');
    }
    await page.getByRole('status').filter({ hasText: 'saved: 2 payments' }).waitFor();
    // Each order is marked as in the file, with Put back; a second download holds none of them.
    for (const orderNo of orders) {
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: orderNo }) });
      await row.getByText(/^In the bank file downloaded by /).waitFor();
      await row.getByRole('button', { name: `Put ${orderNo} back for the next bank file` }).waitFor();
    }
    await page.screenshot({ path: path.join(outDir, 'payout-file-in-file-1366.png'), fullPage: true });
    const [again] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download bank file' }).click()]);
    assert.deepEqual(csvRows(await readFile(await again.path(), 'utf8')).slice(1), []);

    // The bank's answer: every line paid, with its UTR.
    const result = ['Payment Reference,UTR,Status,Amount (INR)', ...lines.map((l, i) => `${l[4]},N33126000${i + 1}77,SUCCESS,${l[3]}`)].join('\r\n');
    const resultFile = path.join(await mkdtempLike(), 'bank-result.csv');
    await writeFile(resultFile, result);
    await page.getByLabel("The bank's result file (CSV)").setInputFiles(resultFile);
    await page.getByRole('button', { name: 'Import bank result' }).click();
    const report = page.getByRole('table', { name: "2 lines of the bank's result file" });
    await report.waitFor();
    for (const orderNo of orders) {
      await report.getByRole('row').filter({ hasText: orderNo }).filter({ hasText: 'Paid out' }).waitFor();
    }
    await page.screenshot({ path: path.join(outDir, 'payout-file-imported-1366.png'), fullPage: true });
    await page.getByText('No approved orders are waiting for payout in India.').waitFor();
  });

  // Both loans started, with the bank's references.
  for (const [i, orderNo] of orders.entries()) {
    const view = await ops.get(`/orders/${encodeURIComponent(orderNo)}`);
    assert.equal(view.order.status, 'disbursed');
    assert.ok(view.loan.payout.bankReference.startsWith('N33126000'), view.loan.payout.bankReference);
    assert.equal(view.beneficiary.bankName, 'HDFC Bank');
    void i;
  }
});

async function mkdtempLike() {
  const dir = path.join(os.tmpdir(), `kilat-payout-file-${process.pid}-${Date.now()}`);
  await mkdir(dir, { recursive: true });
  return dir;
}
