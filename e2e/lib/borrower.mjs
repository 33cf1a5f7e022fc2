// A new borrower's way to an application under review, in either market and its language, at a phone's size: sign in
// with the code from the development outbox, the five certification steps, a loan's Key Fact Statement with the APR,
// the loan agreement shown with it, acceptance of both and confirmation. Shared by the journeys that start from an application (borrow, console).
import assert from 'node:assert/strict';
import path from 'node:path';
import { outDir } from './browser.mjs';

export const BORROWER_MARKETS = {
  india: {
    lang: '?lang=1',
    phone: '91234 56780',
    e164: '+919123456780',
    product: 'Flexi EMI',
    t: {
      phone: 'Mobile number', getCode: 'Get code', code: 'Verification code', submit: 'Log in', home: 'Home',
      details: 'Add my details', start: 'Start', save: 'Save and continue', dateConfirm: 'Done', allDone: 'All done',
      fullName: 'Full name, as on your PAN card', dob: 'Date of birth', gender: 'Gender', idNumber: 'PAN',
      education: 'Education', marital: 'Marital status', residence: 'Your home is', region: 'State or union territory',
      city: 'City', address: 'Address', postal: 'PIN code',
      work: 'Type of work', employer: 'Employer or business name', income: 'Monthly income, in rupees', payDay: 'Pay day (day of the month)',
      contact: (n) => `Contact ${n}`, contactName: 'Name', relation: 'Relationship to you', contactPhone: 'Mobile number',
      consent: /I have told these people/,
      bank: 'Bank', account: 'Account number', accountAgain: 'Account number again', ifsc: 'IFSC',
      apply: 'Apply', kfs: 'Key Fact Statement', apr: 'Annual percentage rate (APR)',
      accept: 'I have read the Key Fact Statement and the loan agreement above, and I accept both', confirm: 'Confirm',
      loans: 'My loans', underReview: 'Under review', agreement: 'Loan agreement', agreementTitle: /^Loan agreement KL-/,
      sent: 'Application sent', withdraw: 'Withdraw application', withdrawConfirm: 'Withdraw', cancelled: 'Cancelled',
    },
    values: {
      fullName: 'Asha Verma', gender: 'Female', idNumber: 'ABCPE1234F', education: 'Graduate', marital: 'Single',
      region: 'Maharashtra', city: 'Mumbai', address: '12 Hill Road, Bandra West', postal: '400050',
      employer: 'Infosys', income: '45000', lowIncome: '9000', payDay: '1',
      contacts: [['Ravi Verma', '98111 22233'], ['Meena Rao', '98222 33344']],
      bank: 'HDFC Bank', account: '501001234567', ifsc: 'HDFC0001234', accountShown: '5010 0123 4567',
    },
  },
  indonesia: {
    lang: '',
    phone: '0812-1111-2222',
    e164: '+6281211112222',
    product: 'Kilat 30',
    t: {
      phone: 'Nomor ponsel', getCode: 'Kirim kode', code: 'Kode verifikasi', submit: 'Masuk', home: 'Beranda',
      details: 'Isi data diri saya', start: 'Mulai', save: 'Simpan dan lanjutkan', dateConfirm: 'Pilih', allDone: 'Semua selesai',
      fullName: 'Nama lengkap sesuai KTP', dob: 'Tanggal lahir', gender: 'Jenis kelamin', idNumber: 'NIK (16 angka di KTP)',
      education: 'Pendidikan', marital: 'Status pernikahan', residence: 'Status tempat tinggal', region: 'Provinsi',
      city: 'Kota/kabupaten', address: 'Alamat', postal: 'Kode pos',
      work: 'Jenis pekerjaan', employer: 'Nama perusahaan atau usaha', income: 'Penghasilan per bulan, dalam rupiah', payDay: 'Tanggal gajian',
      contact: (n) => `Kontak ${n}`, contactName: 'Nama', relation: 'Hubungan dengan Anda', contactPhone: 'Nomor HP',
      consent: /Saya sudah memberi tahu orang-orang ini/,
      bank: 'Bank', account: 'Nomor rekening', accountAgain: 'Ulangi nomor rekening', ifsc: null,
      apply: 'Ajukan', kfs: 'Ringkasan Informasi Pinjaman', apr: null,
      accept: 'Saya telah membaca Ringkasan Informasi Pinjaman dan perjanjian pinjaman di atas, dan saya menyetujui keduanya',
      confirm: 'Konfirmasi',
      loans: 'Pinjaman saya', underReview: 'Sedang ditinjau', agreement: 'Perjanjian pinjaman', agreementTitle: /^Perjanjian pinjaman KL-/,
      sent: 'Pengajuan terkirim', withdraw: 'Batalkan pengajuan', withdrawConfirm: 'Batalkan', cancelled: 'Dibatalkan',
    },
    values: {
      fullName: 'Budi Santoso', gender: 'Laki-laki', idNumber: '3171234567890001', education: null, marital: 'Kawin',
      region: 'DKI Jakarta', city: null, address: 'Jl. Sudirman No. 5', postal: '12190',
      employer: 'PT Maju', income: '7500000', lowIncome: '300000', payDay: '25',
      contacts: [['Siti Aminah', '0812 9876 5432'], ['Andi Wijaya', '0813 1112 2233']],
      bank: null, account: '1234567890', ifsc: null, accountShown: '1234 5678 90',
    },
  },
};

/** The newest code the development outbox holds for this phone once it holds more than `after` (the count before a send), so
 * a code sent earlier is never taken for the one just asked for. */
export async function codeFor(site, e164, { after = 0 } = {}) {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const sent = await codesSent(site, e164);
    if (sent.length > after) return sent[0].code;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no new code was sent to ${e164} (after ${after})`);
}

/** The codes the development outbox holds for `e164`, newest first. */
export async function codesSent(site, e164) {
  const response = await fetch(site.url(`/api/v1/dev/outbox?phone=${encodeURIComponent(e164)}`));
  const body = await response.json();
  assert.equal(body.code, 0);
  return body.data;
}

/** Picks an option of a native select by its label, or the first real option when `label` is null. */
export async function choose(scope, label, option) {
  const select = scope.getByLabel(label, { exact: true });
  if (option) {
    await select.selectOption({ label: option });
  } else {
    const first = await select.locator('option:not([disabled])').first().getAttribute('value');
    await select.selectOption(first);
  }
}

/**
 * Runs the whole application in `page` for `market` (an entry of BORROWER_MARKETS) against `site` (lib/fixture.mjs),
 * and answers the order number and the APR as the KFS showed it, with the order's page open, under review. With
 * `shots`, screenshots of the income warning, the confirm page and the sent order go to outDir as `SHOTS-….png`;
 * `check(label)` runs on each screen as it first shows (the accessibility journey runs axe there).
 */
export async function applyForLoan(page, site, market, { shots, check = async () => {} } = {}) {
  const { t, values: v } = market;
  // Sign in.
  await page.goto(site.url(`/app/login${market.lang}`), { waitUntil: 'load' });
  await page.getByLabel(t.phone, { exact: true }).waitFor();
  await check('sign-in');
  await page.getByLabel(t.phone, { exact: true }).fill(market.phone);
  await page.getByRole('button', { name: t.getCode }).click();
  await page.getByLabel(t.code, { exact: true }).waitFor();
  await page.getByLabel(t.code, { exact: true }).fill(await codeFor(site, market.e164));
  await page.getByRole('button', { name: t.submit, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: t.home }).waitFor();
  await check('home, new borrower');

  // Certification, from home.
  await page.getByRole('link', { name: t.details }).click();
  await page.getByRole('link', { name: t.start }).or(page.getByRole('button', { name: t.start })).first().waitFor();
  await check('certification');
  await page.getByRole('link', { name: t.start }).or(page.getByRole('button', { name: t.start })).first().click();

  // 1. Base information.
  await page.getByLabel(t.fullName, { exact: true }).waitFor();
  await check('certification step 1, base');
  await page.getByLabel(t.fullName, { exact: true }).fill(v.fullName);
  await page.getByRole('button', { name: new RegExp(t.dob) }).click();
  await page.getByRole('button', { name: t.dateConfirm, exact: true }).click();
  await choose(page, t.gender, v.gender);
  await page.getByLabel(t.idNumber, { exact: true }).fill(v.idNumber);
  await page.getByRole('button', { name: t.save }).click();

  // 2. Personal information: the city list follows the state or province.
  await page.getByLabel(t.education, { exact: true }).waitFor();
  await check('certification step 2, personal');
  await choose(page, t.education, v.education);
  await choose(page, t.marital, v.marital);
  await choose(page, t.residence, null);
  await choose(page, t.region, v.region);
  await choose(page, t.city, v.city);
  await page.getByLabel(t.address, { exact: true }).fill(v.address);
  await page.getByLabel(t.postal, { exact: true }).fill(v.postal);
  await page.getByRole('button', { name: t.save }).click();

  // 3. Job and income, a month in both markets; below the minimum a warning shows under the field.
  await page.getByLabel(t.employer, { exact: true }).waitFor();
  await check('certification step 3, job');
  await choose(page, t.work, null);
  await page.getByLabel(t.employer, { exact: true }).fill(v.employer);
  await page.getByLabel(t.income, { exact: true }).fill(v.lowIncome);
  await page.locator('.cert-form__warning').waitFor();
  if (shots) await page.screenshot({ path: path.join(outDir, `${shots}-income-warning.png`) });
  await page.getByLabel(t.income, { exact: true }).fill(v.income);
  await page.locator('.cert-form__warning').waitFor({ state: 'detached' });
  await page.getByLabel(t.payDay, { exact: true }).fill(v.payDay);
  await page.getByRole('button', { name: t.save }).click();

  // 4. Two emergency contacts, typed, with consent.
  await page.getByRole('group', { name: t.contact(1) }).waitFor();
  await check('certification step 4, contacts');
  for (const [i, [contactName, phone]] of v.contacts.entries()) {
    const group = page.getByRole('group', { name: t.contact(i + 1) });
    await group.getByLabel(t.contactName, { exact: true }).fill(contactName);
    await choose(group, t.relation, null);
    await group.getByLabel(t.contactPhone, { exact: true }).fill(phone);
  }
  await page.getByLabel(t.consent).check();
  await page.getByRole('button', { name: t.save }).click();

  // 5. Bank account, typed twice, shown in groups of four.
  await page.getByLabel(t.account, { exact: true }).waitFor();
  await check('certification step 5, bank');
  await choose(page, t.bank, v.bank);
  const account = page.getByLabel(t.account, { exact: true });
  await account.fill(v.account);
  assert.equal(await account.inputValue(), v.accountShown);
  await page.getByLabel(t.accountAgain, { exact: true }).fill(v.account);
  if (t.ifsc) await page.getByLabel(t.ifsc, { exact: true }).fill(v.ifsc);
  await page.getByRole('button', { name: t.save }).click();
  await page.getByRole('heading', { name: t.allDone }).waitFor();
  await check('certification done');

  // Apply: the product page, then its Key Fact Statement with the APR.
  await page.goto(site.url(`/app/home${market.lang}`), { waitUntil: 'load' });
  await page.getByRole('link', { name: market.product }).first().click();
  await page.getByRole('heading', { level: 1, name: market.product }).waitFor();
  // The market's numbers: 17.07% in India, 17,07% in Indonesia.
  const aprPattern = market.lang ? /^\d+\.\d{2}%$/ : /^\d+,\d{2}%$/;
  // What it costs, read before applying; Apply is clicked once the quote is in, where it stays (a click as the quote
  // arrived once landed on its figures, which took more room than their placeholder then).
  await page.locator('section.quote').getByText(aprPattern).waitFor();
  await check('product');
  await page.getByRole('button', { name: t.apply, exact: true }).or(page.getByRole('link', { name: t.apply, exact: true })).first().click();
  await page.getByRole('heading', { level: 1, name: t.kfs }).waitFor();
  const apr = page.getByText(aprPattern).first();
  await apr.waitFor();
  const aprText = await apr.textContent();
  if (t.apr) await page.getByText(t.apr).first().waitFor();

  // This loan's agreement is on the screen before anything is accepted, naming the borrower and the account.
  const preview = page.locator('section.confirm__agreement');
  await preview.getByText(v.fullName).first().waitFor();
  assert.ok((await preview.textContent()).includes(v.account.slice(-4)), 'the agreement names the payout account');
  if (shots) await page.screenshot({ path: path.join(outDir, `${shots}-confirm.png`), fullPage: true });
  await check('KFS and agreement');

  // Confirm needs the explicit acceptance of both.
  const confirm = page.getByRole('button', { name: t.confirm, exact: true });
  await page.getByLabel(t.accept).check();
  await confirm.click();

  // The order: sent, under review (with when a decision comes), with the accepted KFS's APR.
  await page.getByRole('status').filter({ hasText: t.sent }).waitFor();
  await page.getByText(t.underReview).first().waitFor();
  if (shots) await page.screenshot({ path: path.join(outDir, `${shots}-sent.png`) });
  await check('application sent');
  const orderUrl = new URL(page.url());
  assert.match(orderUrl.pathname, /^\/app\/orders\/KL-\d{6}-[0-9A-Z]{6}$/);
  const orderNo = decodeURIComponent(orderUrl.pathname.split('/').pop());
  await page.getByText(aprText).first().waitFor();

  return { orderNo, aprText };
}

/** A console session of the demo admin that `kilat serve` prints in development (every role). */
export async function consoleSession(site) {
  const printed = site.server.output().match(/as admin, password (\S+)/);
  assert.ok(printed, 'kilat serve printed the demo admin');
  const origin = new URL(site.url('/')).origin;
  const login = await fetch(site.url('/api/v1/console/login'), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: origin },
    body: JSON.stringify({ username: 'admin', password: printed[1] }),
  });
  const body = await login.json();
  assert.equal(body.code, 0, JSON.stringify(body));
  const cookie = login.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  const call = async (method, path, json) => {
    const response = await fetch(site.url(`/api/v1/console${path}`), {
      method,
      headers: { 'Content-Type': 'application/json', Origin: origin, Cookie: cookie, 'X-CSRF-Token': body.data.csrfToken },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const answer = await response.json();
    assert.equal(answer.code, 0, `${method} ${path}: ${JSON.stringify(answer)}`);
    return answer.data;
  };
  return { get: (path) => call('GET', path), post: (path, json) => call('POST', path, json) };
}
