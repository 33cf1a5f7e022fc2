// Customer service end to end (issue 9): a borrower in India signs in, opens customer service from the account menu,
// files a complaint with a photo (a PNG made here, with a text chunk the server must strip), and sees the ticket
// number at once; support answers it in the console on a desktop; the borrower reads the answer and rates it.
// Screenshots of each screen (360×740 and 1280×800) go to e2e/out/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import zlib from 'node:zlib';
import { outDir } from '../lib/browser.mjs';
import { codeFor } from '../lib/borrower.mjs';
import { JOURNEY, useSite } from '../lib/fixture.mjs';

const site = useSite();
const DESKTOP = { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, isMobile: false, hasTouch: false };

/** A 48×32 PNG with a gradient and a tEXt chunk (metadata the server must drop when it re-encodes). */
function pngWithText() {
  const chunk = (type, data) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body) >>> 0);
    return Buffer.concat([length, body, crc]);
  };
  const [w, h] = [48, 32];
  const header = Buffer.alloc(13);
  header.writeUInt32BE(w, 0);
  header.writeUInt32BE(h, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = [];
  for (let y = 0; y < h; y += 1) {
    const row = Buffer.alloc(1 + w * 3);
    for (let x = 0; x < w; x += 1) row.set([x * 5, y * 7, 160], 1 + x * 3);
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('tEXt', Buffer.from('Comment\0SECRET-LOCATION-28.61N', 'latin1')),
    chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function adminPassword() {
  const match = /as admin, password (\S+)/.exec(site.server.output());
  assert.ok(match, 'kilat serve printed the demo admin');
  return match[1];
}

test('a borrower files a complaint with a photo, support answers in the console, the borrower reads and rates it', { ...JOURNEY, timeout: 240_000 }, async (tc) => {
  await site.page(tc, async (page) => {
    // Sign in (India, English).
    await page.goto(site.url('/app/login?lang=1'), { waitUntil: 'load' });
    await page.getByLabel('Mobile number', { exact: true }).fill('91234 56799');
    await page.getByRole('button', { name: 'Get code' }).click();
    await page.getByLabel('Verification code', { exact: true }).fill(await codeFor(site, '+919123456799'));
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();

    // Customer service from the account menu: phone, WhatsApp, the grievance officer, the FAQ.
    await page.goto(site.url('/app/me?lang=1'), { waitUntil: 'load' });
    await page.getByRole('main').getByRole('link', { name: 'Customer service' }).click();
    await page.getByRole('heading', { level: 1, name: 'Customer service' }).waitFor();
    await page.getByText('Priya Raman').waitFor();
    const whatsapp = await page.getByRole('link', { name: '+91 90000 00100' }).getAttribute('href');
    assert.match(whatsapp, /^https:\/\/wa\.me\/919000000100\?text=Hello/);
    await page.getByText('Who can borrow?').click();
    await page.getByText(/Salaried people in India/).waitFor();
    await page.screenshot({ path: path.join(outDir, 'complaints-customer-service.png'), fullPage: true });

    // No complaints yet: the empty state offers to file one.
    await page.getByRole('link', { name: 'My complaints' }).click();
    await page.getByRole('heading', { name: 'No complaints' }).waitFor();
    await page.screenshot({ path: path.join(outDir, 'complaints-empty.png') });
    await page.getByRole('link', { name: 'File a complaint' }).click();

    // The form: a category, the text, a photo.
    await page.getByRole('heading', { level: 1, name: 'New complaint' }).waitFor();
    await page.getByText('Fees and charges', { exact: true }).click();
    await page.getByPlaceholder('Tell us what happened, and when.').fill('I was charged the processing fee twice on my last payment.');
    const uploaded = page.waitForResponse((r) => r.url().endsWith('/api/v1/borrower/complaints/images') && r.request().method() === 'POST');
    await page.locator('input[type=file]').setInputFiles({ name: 'receipt.png', mimeType: 'image/png', buffer: pngWithText() });
    const upload = await (await uploaded).json();
    assert.equal(upload.code, 0, JSON.stringify(upload));
    assert.equal(upload.data.contentType, 'image/png');
    // The stored photo has no trace of the text chunk.
    const { head, stored } = await page.evaluate(async (id) => {
      const r = await fetch(`/api/v1/borrower/complaints/images/${id}`);
      const bytes = new Uint8Array(await r.arrayBuffer());
      // Bytes, not text: a browser's 'latin1' decoder is windows-1252, which turns 0x89 into '‰'.
      return { head: Array.from(bytes.slice(0, 4)), stored: new TextDecoder('latin1').decode(bytes) };
    }, upload.data.imageId);
    assert.deepEqual(head, [0x89, 0x50, 0x4e, 0x47], 'a PNG');
    assert.ok(!stored.includes('SECRET-LOCATION'), 'metadata stripped');
    await page.screenshot({ path: path.join(outDir, 'complaints-new.png'), fullPage: true });
    await page.getByRole('button', { name: 'Send complaint' }).click();

    // The ticket at once.
    await page.getByRole('heading', { level: 1, name: 'Complaint' }).waitFor();
    const ticketText = await page.locator('.complaint__ticket strong').textContent();
    assert.match(ticketText, /^CP-\d{6}-[0-9A-Z]{6}$/);
    await page.getByText('Waiting for us').waitFor();
    await page.getByRole('img', { name: 'Photo 1' }).waitFor();
    await page.screenshot({ path: path.join(outDir, 'complaints-filed.png'), fullPage: true });

    // Support answers in the console.
    await site.page(tc, DESKTOP, async (desk) => {
      await desk.goto(site.url('/console/complaints'), { waitUntil: 'load' });
      await desk.getByLabel('Username').fill('admin');
      await desk.getByLabel('Password').fill(adminPassword());
      await desk.getByRole('button', { name: 'Sign in' }).click();
      await desk.getByRole('heading', { level: 1, name: 'Complaints' }).waitFor();
      const link = desk.getByRole('link', { name: ticketText });
      await link.waitFor();
      await desk.screenshot({ path: path.join(outDir, 'complaints-console-queue.png') });
      await link.click();
      await desk.getByText('I was charged the processing fee twice on my last payment.').waitFor();
      await desk.getByRole('img', { name: 'Photo 1' }).waitFor();
      await desk.getByLabel('Reply to the borrower').fill('We found the double charge and refunded it today. Sorry for the trouble.');
      await desk.getByRole('button', { name: 'Send reply' }).click();
      await desk.getByRole('status').filter({ hasText: 'Reply sent' }).waitFor();
      await desk.screenshot({ path: path.join(outDir, 'complaints-console-answered.png'), fullPage: true });
    });

    // The borrower reads the answer and rates it, once.
    await page.reload({ waitUntil: 'load' });
    await page.getByText('We found the double charge and refunded it today. Sorry for the trouble.').waitFor();
    await page.getByText('Answered').first().waitFor();
    await page.getByRole('button', { name: '5 of 5' }).click();
    await page.getByRole('button', { name: 'Send rating' }).click();
    await page.getByRole('heading', { name: 'Your rating' }).waitFor();
    await page.screenshot({ path: path.join(outDir, 'complaints-rated.png'), fullPage: true });
    await page.goto(site.url('/app/complaints?lang=1'), { waitUntil: 'load' });
    await page.getByRole('link', { name: ticketText }).waitFor();
    await page.screenshot({ path: path.join(outDir, 'complaints-list.png') });
  });
});
