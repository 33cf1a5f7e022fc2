// A new borrower signs in to the app with the code sent to their phone (read from the development outbox), lands on
// home, sees their account, reloads and stays signed in, and logs out. In each market, in its language.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JOURNEY, useSite } from '../lib/fixture.mjs';

const site = useSite();

const MARKETS = {
  india: {
    path: '/app/login?lang=1',
    phone: '98765 43210',
    e164: '+919876543210',
    masked: '+91 ******3210',
    text: { phone: 'Mobile number', getCode: 'Get code', sent: /We sent a code by SMS/, code: 'Verification code',
      submit: 'Log in', home: 'Home', account: 'My account', logout: 'Log out', resendIn: /Resend code in \d+ s/ },
  },
  indonesia: {
    path: '/app/login',
    phone: '0812-3456-7890',
    e164: '+6281234567890',
    masked: '+62 *******7890',
    text: { phone: 'Nomor ponsel', getCode: 'Kirim kode', sent: /Kami mengirim kode lewat SMS/, code: 'Kode verifikasi',
      submit: 'Masuk', home: 'Beranda', account: 'Akun saya', logout: 'Keluar', resendIn: /Kirim ulang kode dalam \d+/ },
  },
};

async function codeFor(e164) {
  const response = await fetch(site.url(`/api/v1/dev/outbox?phone=${encodeURIComponent(e164)}`));
  const body = await response.json();
  assert.equal(body.code, 0, `the development outbox answers: ${JSON.stringify(body)}`);
  assert.ok(body.data.length > 0, `a code was sent to ${e164}`);
  return body.data[0].code;
}

for (const [name, market] of Object.entries(MARKETS)) {
  test(`a new borrower in ${name} signs in with the code from their phone, stays signed in, and logs out`, JOURNEY, async (t) => {
    await site.page(t, async (page, context) => {
      await page.goto(site.url(market.path), { waitUntil: 'load' });
      await page.getByLabel(market.text.phone, { exact: true }).fill(market.phone);
      await page.getByRole('button', { name: market.text.getCode }).click();
      await page.getByText(market.text.sent).waitFor();
      await page.getByText(market.masked).first().waitFor();
      // The resend button counts down instead of allowing another code at once.
      await page.getByRole('button', { name: market.text.resendIn }).waitFor();

      const code = await codeFor(market.e164);
      assert.match(code, /^\d{6}$/);
      await page.getByLabel(market.text.code, { exact: true }).fill(code);
      await page.getByRole('button', { name: market.text.submit, exact: true }).click();
      // A signed-in borrower lands on home, and finds their account in the tab bar.
      await page.getByRole('heading', { level: 1, name: market.text.home }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/app/home');
      await page.getByRole('link', { name: market.text.account }).click();
      await page.getByRole('heading', { level: 1, name: market.text.account }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/app/me');
      await page.getByText(market.masked).waitFor();

      const session = (await context.cookies()).find((c) => c.name === 'kilat_session');
      assert.ok(session, 'the session cookie is set');
      assert.equal(session.httpOnly, true, 'scripts cannot read the session');
      assert.equal(await page.evaluate(() => document.cookie.includes('kilat_session')), false);

      // The account screen asks for its menu once the borrower is known. Log out only after it has answered: a
      // request still in flight when the session is revoked rightly gets a 401, which the browser reports as an error.
      const menuAnswered = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/v1/borrower/menu');
      await page.reload({ waitUntil: 'load' });
      await page.getByRole('heading', { level: 1, name: market.text.account }).waitFor();
      await page.getByText(market.masked).waitFor();
      assert.equal((await menuAnswered).status(), 200);

      await page.getByRole('button', { name: market.text.logout }).click();
      await page.getByLabel(market.text.phone, { exact: true }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/app/login');
      // The old session is revoked on the server, not just forgotten by the browser.
      const me = await context.request.get(site.url('/api/v1/borrower/me'), {
        headers: { 'X-Session-Id': session.value },
      });
      assert.equal(me.status(), 401);
    });
  });
}
