// A visitor writes to the company from the Contact Us tab. Incomplete forms are refused in the page (a toast for
// about a second, nothing sent); a complete one is sent, stored, acknowledged and cleared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JOURNEY, useSite } from '../lib/fixture.mjs';
import { MARKETS } from '../lib/site.mjs';
import { watchToast, readToast } from '../lib/in-page.mjs';

const site = useSite();

const CONTACT_API = '/api/v1/site/contact-messages';

async function openContactForm(page, market) {
  await page.goto(site.url(market.path), { waitUntil: 'load' });
  await page.getByRole('tab', { name: market.tabs.contact, exact: true }).click();
  const form = {
    name: page.getByLabel(market.form.name, { exact: true }),
    telephone: page.getByLabel(market.form.telephone, { exact: true }),
    message: page.getByLabel(market.form.message, { exact: true }),
    send: page.getByRole('button', { name: market.form.send }),
  };
  await form.name.waitFor({ state: 'visible' });
  return form;
}

/** Records the contact API calls the page makes. */
function watchPosts(page) {
  const posts = [];
  page.on('request', (req) => {
    if (new URL(req.url()).pathname === CONTACT_API) posts.push(req);
  });
  return posts;
}

/**
 * Presses Send and checks the toast: exactly `text`, on show within `appearWithinMs` of the press, for about a
 * second: at least 0.5 s, and gone within 1.6 s plus however late the page's timers were running (a loaded CI
 * machine delays every timer; a toast that stays 3 s still fails).
 */
async function sendAndExpectToast(t, page, form, text, { appearWithinMs }) {
  await watchToast(page, text);
  await form.send.click();
  const toast = await readToast(page);
  assert.notEqual(toast.shownAt, null, `toast ${JSON.stringify(text)} appeared (toasts seen: ${JSON.stringify(toast.seen)})`);
  assert.notEqual(toast.clickAt, null, 'the press was recorded');
  const appearedAfter = toast.shownAt - toast.clickAt;
  const shownFor = (toast.goneAt ?? Infinity) - toast.shownAt;
  // How late the page's own 1 s timer ran: a busy machine delays the toast's timer just as much.
  const timerLate = toast.refAt == null ? 0 : Math.max(0, toast.refAt - toast.shownAt - 1000);
  t.diagnostic(
    `toast ${JSON.stringify(text)}: on show ${Math.round(appearedAfter)} ms after the press, for ${Math.round(shownFor)} ms` +
      (timerLate > 50 ? ` (the page's 1 s timers ran ${Math.round(timerLate)} ms late)` : ''),
  );
  assert.ok(appearedAfter <= appearWithinMs, `the toast appeared ${Math.round(appearedAfter)} ms after the press`);
  assert.ok(
    shownFor >= 500 && shownFor - timerLate <= 1600,
    `the toast was on show for ${Math.round(shownFor)} ms (about 1 s; timers ${Math.round(timerLate)} ms late)`,
  );
}

async function refusesIncompleteForms(t, market) {
  await site.page(t, async (page) => {
    const storedBefore = await site.server.storedMessages();
    const posts = watchPosts(page);
    const form = await openContactForm(page, market);

    // All empty.
    await sendAndExpectToast(t, page, form, market.toast.incomplete, { appearWithinMs: 500 });

    // White space only, in every field.
    await form.name.fill('   ');
    await form.telephone.fill(' \t ');
    await form.message.fill(' \n \n ');
    await sendAndExpectToast(t, page, form, market.toast.incomplete, { appearWithinMs: 500 });

    // Two of three filled: still incomplete, and what was typed stays.
    await form.name.fill('Asha Verma');
    await form.telephone.fill('+91 98765 43210');
    await form.message.fill('  ');
    await sendAndExpectToast(t, page, form, market.toast.incomplete, { appearWithinMs: 500 });
    assert.equal(await form.name.inputValue(), 'Asha Verma', 'an incomplete form keeps what was typed');

    assert.deepEqual(posts.map((r) => `${r.method()} ${r.url()}`), [], 'nothing was sent');
    assert.deepEqual(await site.server.storedMessages(), storedBefore, 'nothing was stored');
  });
}

async function sendsAMessage(t, market, visitor) {
  await site.page(t, async (page) => {
    const posts = watchPosts(page);
    const form = await openContactForm(page, market);
    await form.name.fill(`  ${visitor.name} `);
    await form.telephone.fill(visitor.telephone);
    await form.message.fill(visitor.message);

    const answered = page.waitForResponse((res) => new URL(res.url()).pathname === CONTACT_API);
    await sendAndExpectToast(t, page, form, market.toast.sent, { appearWithinMs: 1500 });
    assert.equal((await answered).status(), 201, 'the server accepted the message');
    assert.equal(posts.length, 1, 'the message was sent once');
    assert.equal(posts[0].method(), 'POST');

    const [stored] = await site.server.storedMessages();
    assert.ok(stored, 'a message was stored');
    assert.equal(stored.name, visitor.name, 'the name is stored trimmed');
    assert.equal(stored.telephone, visitor.telephone);
    assert.equal(stored.message, visitor.message);
    assert.ok(Math.abs(stored.createdAt - Date.now()) < 60_000, `stored just now (createdAt ${stored.createdAt})`);

    for (const field of ['name', 'telephone', 'message']) {
      assert.equal(await form[field].inputValue(), '', `the ${field} field is cleared after sending`);
    }
  });
}

test('a visitor in India presses Send with an empty or blank form, is asked to complete it, and nothing is sent', JOURNEY, async (t) => {
  await refusesIncompleteForms(t, MARKETS.india);
});

test('a visitor in India sends a complete message: it is stored, acknowledged and the form clears', JOURNEY, async (t) => {
  await sendsAMessage(t, MARKETS.india, {
    name: 'Asha Verma',
    telephone: '+91 98765 43210',
    message: 'I would like to know how long a ₹20,000 loan takes to arrive.\nThank you!',
  });
});

test('a visitor in Indonesia is answered in Indonesian: an empty form is refused, a complete one is sent', JOURNEY, async (t) => {
  await refusesIncompleteForms(t, MARKETS.indonesia);
  await sendsAMessage(t, MARKETS.indonesia, {
    name: 'Budi Santoso',
    telephone: '0812-3456-7890',
    message: 'Berapa lama pencairan pinjaman Rp2.000.000?',
  });
});
