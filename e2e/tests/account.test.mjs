// A borrower with no open loan deletes the account at a phone's size: they apply, download the loan's KFS as a PDF,
// withdraw the application, read on the delete screen what is deleted and what the law keeps, delete after ticking
// the box and confirming, land on the login screen; the old session is refused by the server; signing in again with
// the same phone starts an empty account (no loans, no details). In each market, in its language.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { outDir } from '../lib/browser.mjs';
import { BORROWER_MARKETS, applyForLoan, codeFor, codesSent } from '../lib/borrower.mjs';
import { JOURNEY, useSite } from '../lib/fixture.mjs';

const site = useSite();

const ACCOUNT_TEXT = {
  india: {
    account: 'My account', deleteEntry: 'Delete account', kept: /Prevention of Money-laundering Act/,
    understood: /I understand that my account/, deleteButton: 'Delete my account', confirm: 'Delete', login: 'Log in',
    noLoans: /No loans yet|You have no loans/, kfsPdf: 'Key Fact Statement (PDF)',
  },
  indonesia: {
    account: 'Akun saya', deleteEntry: 'Hapus akun', kept: /ketentuan OJK/,
    understood: /Saya mengerti bahwa akun/, deleteButton: 'Hapus akun saya', confirm: 'Hapus', login: 'Masuk',
    noLoans: /Belum ada pinjaman|Anda belum punya pinjaman/, kfsPdf: 'Ringkasan Informasi Pinjaman (PDF)',
  },
};

for (const [name, market] of Object.entries(BORROWER_MARKETS)) {
  const { t } = market;
  const a = ACCOUNT_TEXT[name];
  test(`a borrower in ${name} with no open loan deletes the account and the same phone starts afresh`, { ...JOURNEY, timeout: 180_000 }, async (tc) => {
    await site.page(tc, async (page, context) => {
      const { orderNo } = await applyForLoan(page, site, market);

      // The loan page offers the accepted KFS as a PDF, served to the owner.
      const link = page.getByRole('link', { name: a.kfsPdf });
      await link.waitFor();
      const pdf = await context.request.get(site.url(await link.getAttribute('href')));
      assert.equal(pdf.status(), 200);
      assert.equal(pdf.headers()['content-type'], 'application/pdf');
      assert.ok((await pdf.body()).subarray(0, 5).toString() === '%PDF-');

      // No open loan: withdraw the application.
      await page.getByRole('button', { name: t.withdraw }).click();
      await page.getByRole('dialog').getByRole('button', { name: t.withdrawConfirm, exact: true }).click();
      await page.locator('.order__head .status-badge--cancelled').waitFor();
      const oldSession = (await context.cookies()).find((c) => c.name === 'kilat_session');
      assert.ok(oldSession, 'signed in by cookie');

      // From the account menu to the delete screen.
      await page.goto(site.url(`/app/me${market.lang}`), { waitUntil: 'load' });
      await page.getByRole('heading', { level: 1, name: a.account }).waitFor();
      await page.getByRole('link', { name: a.deleteEntry }).click();
      await page.getByRole('heading', { level: 1, name: a.deleteEntry }).waitFor();
      await page.getByText(a.kept).waitFor();
      const button = page.getByRole('button', { name: a.deleteButton });
      await button.waitFor();
      assert.equal(await button.isDisabled(), true, 'the button waits for the box');
      await page.screenshot({ path: path.join(outDir, `account-${name}-delete.png`), fullPage: true });
      await page.getByText(a.understood).click();
      await button.click();
      await page.getByRole('dialog').getByRole('button', { name: a.confirm, exact: true }).click();

      // Signed out, on the login screen; the old session is refused by the server.
      await page.getByRole('heading', { level: 1, name: a.login }).waitFor();
      const me = await fetch(site.url('/api/v1/borrower/me'), { headers: { 'X-Session-Id': oldSession.value } });
      assert.equal(me.status, 401);
      const order = await fetch(site.url(`/api/v1/borrower/orders/${encodeURIComponent(orderNo)}`), {
        headers: { 'X-Session-Id': oldSession.value },
      });
      assert.equal(order.status, 401);

      // The same phone signs in again: a new, empty account. The code is the one sent now, not the first sign-in's
      // (which the outbox still holds): the code field can show before the new code is stored.
      const sentBefore = (await codesSent(site, market.e164)).length;
      await page.getByLabel(t.phone, { exact: true }).fill(market.phone);
      await page.getByRole('button', { name: t.getCode }).click();
      await page.getByLabel(t.code, { exact: true }).waitFor();
      await page.getByLabel(t.code, { exact: true }).fill(await codeFor(site, market.e164, { after: sentBefore }));
      await page.getByRole('button', { name: t.submit, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: t.home }).waitFor();
      await page.getByRole('link', { name: t.details }).waitFor();
      const newSession = (await context.cookies()).find((c) => c.name === 'kilat_session');
      const orders = await (
        await fetch(site.url('/api/v1/borrower/orders'), { headers: { 'X-Session-Id': newSession.value } })
      ).json();
      assert.deepEqual(orders.data, []);
      const oldOrder = await fetch(site.url(`/api/v1/borrower/orders/${encodeURIComponent(orderNo)}`), {
        headers: { 'X-Session-Id': newSession.value },
      });
      assert.equal(oldOrder.status, 404);
      await page.goto(site.url(`/app/orders${market.lang}`), { waitUntil: 'load' });
      await page.getByRole('heading', { level: 1, name: t.loans }).waitFor();
      assert.equal(await page.getByRole('link', { name: new RegExp(orderNo) }).count(), 0);
      await page.screenshot({ path: path.join(outDir, `account-${name}-afresh.png`) });
    });
  });
}
