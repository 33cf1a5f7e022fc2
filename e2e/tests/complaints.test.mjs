// Customer service end to end (issue 9): a borrower in India signs in, opens customer service from the account menu,
// files a complaint with a photo (a PNG made here, with a text chunk the server must strip), and sees the ticket
// number at once; support answers it in the console on a desktop; the borrower reads the answer, rates it and replies;
// support takes the ticket, answers with a canned reply edited before sending and closes it; the borrower can no longer
// reply. axe (WCAG 2.1 AA) checks each complaint screen on the way.
// Screenshots of each screen (360×740 and 1280×800) go to e2e/out/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import zlib from 'node:zlib';
import { expectNoAxeViolations } from '../lib/axe.mjs';
import { outDir } from '../lib/browser.mjs';
import { codeFor } from '../lib/borrower.mjs';
import { JOURNEY, useSite } from '../lib/fixture.mjs';

const site = useSite();
const DESKTOP = { viewport: { width: 1366, height: 768 }, deviceScaleFactor: 1, isMobile: false, hasTouch: false };

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
  await site.page(tc, {}, async (page) => {
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

    // The form: an empty submit marks the fields where they are, then a category, the text, a photo.
    await page.getByRole('heading', { level: 1, name: 'New complaint' }).waitFor();
    await page.getByRole('button', { name: 'Send complaint' }).click();
    await page.getByText('Choose what it is about.').waitFor();
    await page.getByText('Tell us what happened.').waitFor();
    await expectNoAxeViolations(page, 'new complaint, empty submit');
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
    await expectNoAxeViolations(page, 'complaint filed');
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

    // The conversation goes on until support closes it: an empty reply is marked on its field, then the borrower
    // replies, and the ticket waits for support again.
    await page.getByRole('button', { name: 'Send reply' }).click();
    await page.getByText('Write your reply first.').waitFor();
    await page.getByPlaceholder('Add details or answer our question.').fill('Thank you. When will the refund reach my bank account?');
    await page.getByRole('button', { name: 'Send reply' }).click();
    await page.locator('.complaint__message--borrower').filter({ hasText: 'When will the refund reach my bank account?' }).waitFor();
    await page.getByText('Waiting for us').first().waitFor();
    await expectNoAxeViolations(page, 'complaint with the borrower\'s reply');
    await page.screenshot({ path: path.join(outDir, 'complaints-replied.png'), fullPage: true });

    // Support keeps a canned reply, takes the ticket, inserts the reply, edits it, sends it and closes the ticket.
    await site.page(tc, DESKTOP, async (desk) => {
      await desk.goto(site.url('/console/canned-replies?lang=en'), { waitUntil: 'load' });
      await desk.getByLabel('Username').fill('admin');
      await desk.getByLabel('Password').fill(adminPassword());
      await desk.getByRole('button', { name: 'Sign in' }).click();
      await desk.getByRole('heading', { level: 1, name: 'Canned replies' }).waitFor();
      await desk.getByRole('button', { name: 'New canned reply' }).click();
      await desk.getByLabel('Title (shown in the menu)').fill('Refund timing');
      await desk.getByLabel('Reply text').fill('A refund reaches your bank account within 3 working days.');
      await desk.getByRole('button', { name: 'Save' }).click();
      await desk.getByRole('status').filter({ hasText: 'Canned reply saved.' }).waitFor();
      await expectNoAxeViolations(desk, 'console canned replies');

      await desk.goto(site.url('/console/complaints'), { waitUntil: 'load' });
      await desk.getByLabel('Assignee').selectOption('unassigned');
      await desk.getByRole('link', { name: ticketText }).click();
      await desk.getByText('When will the refund reach my bank account?').waitFor();
      await desk.getByRole('button', { name: 'Assign to me' }).click();
      await desk.getByRole('status').filter({ hasText: 'Assigned to admin.' }).waitFor();
      await desk.getByLabel('Canned reply (English)').selectOption({ label: 'Refund timing' });
      const box = desk.getByLabel('Reply to the borrower');
      assert.equal(await box.inputValue(), 'A refund reaches your bank account within 3 working days.');
      await box.fill(`${await box.inputValue()} Yours was sent today.`);
      await expectNoAxeViolations(desk, 'console ticket');
      await desk.screenshot({ path: path.join(outDir, 'complaints-console-canned.png'), fullPage: true });
      await desk.getByRole('button', { name: 'Send reply' }).click();
      await desk.getByRole('status').filter({ hasText: 'Reply sent' }).waitFor();
      await desk.getByRole('button', { name: 'Close complaint' }).click();
      await desk.getByRole('status').filter({ hasText: 'Complaint closed.' }).waitFor();
      await desk.goto(site.url('/console/complaints'), { waitUntil: 'load' });
      await desk.getByLabel('Assignee').selectOption('mine');
      await desk.getByLabel('Show').selectOption('all');
      await desk.getByRole('link', { name: ticketText }).waitFor();
      await expectNoAxeViolations(desk, 'console complaints queue');
    });

    // Closed: the borrower reads the last answer and can no longer reply (the API refuses too).
    await page.reload({ waitUntil: 'load' });
    await page.getByText('A refund reaches your bank account within 3 working days. Yours was sent today.').waitFor();
    await page.getByRole('heading', { name: 'This complaint is closed' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Send reply' }).count(), 0);
    // With the page's cookies but outside the page, so the expected 409 is not one of the page's console errors.
    const origin = new URL(site.url('/')).origin;
    const refused = await page.request.post(site.url(`/api/v1/borrower/complaints/${ticketText}/replies`), {
      headers: { Origin: origin, 'X-Requested-With': 'XMLHttpRequest' },
      data: { body: 'Hello?' },
    });
    assert.equal(refused.status(), 409);
    assert.equal((await refused.json()).code, 'complaint_closed');
    await expectNoAxeViolations(page, 'closed complaint');
    await page.screenshot({ path: path.join(outDir, 'complaints-closed.png'), fullPage: true });
    await page.goto(site.url('/app/complaints?lang=1'), { waitUntil: 'load' });
    await page.getByRole('link', { name: ticketText }).waitFor();
    await page.screenshot({ path: path.join(outDir, 'complaints-list.png') });
  });
});
