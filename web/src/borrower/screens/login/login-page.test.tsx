import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { DEV_SETTINGS, DEV_SETTINGS_BY_MARKET } from '@/shared/settings/settings';
import { LOGIN_INIT_IN, deferred, fakeApi, ok, refusal, renderBorrower } from '@/test/render-borrower';
import { HOME_NEW } from '../home/fixtures.test-data';
import { PRIVACY_ID } from '../legal/fixtures.test-data';

const field = (label: string) => screen.getByLabelText(label);
/** The field's box: its label, input and the error under it. */
const fieldBox = (label: string) => field(label).closest('.field') as HTMLElement;

async function openLogin(url = '/app/login?lang=1') {
  const user = userEvent.setup();
  const result = renderBorrower(url);
  await screen.findByLabelText(url.includes('lang=1') ? 'Mobile number' : 'Nomor ponsel');
  return { user, ...result };
}

describe('login (India)', () => {
  it('shows the country code from the server and formats the number as it is typed', async () => {
    const api = fakeApi();
    const { user } = await openLogin();
    expect(api.callsTo('GET', '/api/v1/borrower/login/init')[0]!.query.get('market')).toBe('IN');
    expect(screen.getByRole('heading', { level: 1, name: 'Log in' })).toBeInTheDocument();
    expect(within(fieldBox('Mobile number')).getByText('+91')).toBeInTheDocument();
    expect(field('Mobile number')).toHaveAttribute('placeholder', '98765 43210');
    await user.type(field('Mobile number'), '9876543210');
    expect(field('Mobile number')).toHaveValue('98765 43210');
    expect(screen.getByRole('contentinfo')).toHaveTextContent(`Loans are made by ${DEV_SETTINGS_BY_MARKET.in.lenderName}.`);
    expect(document.title).toBe(`Log in · ${DEV_SETTINGS.appNameEn}`);
  });

  it('refuses a number that is not an Indian mobile number, under the field, without asking the server', async () => {
    const api = fakeApi();
    const { user } = await openLogin();
    await user.type(field('Mobile number'), '5876543210');
    await user.click(screen.getByRole('button', { name: 'Get code' }));
    expect(within(fieldBox('Mobile number')).getByText('Enter a 10-digit mobile number that starts with 6, 7, 8 or 9.')).toBeInTheDocument();
    expect(field('Mobile number')).toHaveAttribute('aria-invalid', 'true');
    expect(api.callsTo('POST', '/api/v1/borrower/login/sms-code')).toHaveLength(0);

    await user.clear(field('Mobile number'));
    expect(within(fieldBox('Mobile number')).queryByText(/Enter a 10-digit/)).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Get code' }));
    expect(within(fieldBox('Mobile number')).getByText('Enter your mobile number.')).toBeInTheDocument();
  });

  it('asks for an SMS code, counts down the resend wait, then offers a resend and a voice call', async () => {
    const api = fakeApi({
      'POST /api/v1/borrower/login/sms-code': () => ok({ resendSeconds: 2, expiresInSeconds: 300, phoneMasked: '+91 ******3210', deliveryConfirmed: true }),
      'POST /api/v1/borrower/login/voice-code': () => ok({ resendSeconds: 60, expiresInSeconds: 300, phoneMasked: '+91 ******3210', deliveryConfirmed: true }),
    });
    const { user } = await openLogin();
    await user.type(field('Mobile number'), '+91 98765 43210');
    await user.click(screen.getByRole('button', { name: 'Get code' }));

    expect(await screen.findByText('We sent a code by SMS to +91 ******3210.')).toBeInTheDocument();
    const [sent] = api.callsTo('POST', '/api/v1/borrower/login/sms-code');
    expect(sent!.body).toEqual({ market: 'IN', phone: '+919876543210' });
    expect(sent!.headers).toMatchObject({ 'Accept-Language': 'en-IN', 'X-Requested-With': 'XMLHttpRequest' });
    expect(screen.getByRole('button', { name: 'Resend code in 2 s' })).toBeDisabled();
    expect(screen.queryByRole('button', { name: 'Get a voice call instead' })).toBeNull();
    expect(field('Verification code')).toHaveFocus();

    const resend = await screen.findByRole('button', { name: 'Resend code' }, { timeout: 3500 });
    expect(resend).toBeEnabled();
    await user.click(screen.getByRole('button', { name: 'Get a voice call instead' }));
    expect(await screen.findByText('We are calling +91 ******3210 to read out your code.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/borrower/login/voice-code')[0]!.body).toEqual({ market: 'IN', phone: '+919876543210' });
    expect(screen.getByRole('button', { name: 'Resend code in 60 s' })).toBeDisabled();
  }, 10_000);

  it('says so when the code may not have been sent, and keeps the wait before a new one', async () => {
    fakeApi({
      'POST /api/v1/borrower/login/sms-code': () => ok({ resendSeconds: 60, expiresInSeconds: 300, phoneMasked: '+91 ******3210', deliveryConfirmed: false }),
    });
    const { user } = await openLogin();
    await user.type(field('Mobile number'), '9876543210');
    await user.click(screen.getByRole('button', { name: 'Get code' }));
    expect(
      await screen.findByText('We asked for a code to be sent to +91 ******3210, but could not confirm it was sent. If it has not arrived when the wait ends, ask for a new one.'),
    ).toBeInTheDocument();
    expect(screen.queryByText('We sent a code by SMS to +91 ******3210.')).toBeNull();
    expect(screen.getByRole('button', { name: 'Resend code in 60 s' })).toBeDisabled();
    expect(field('Verification code')).toHaveFocus();
  });

  it('does not offer a voice call when the server does not', async () => {
    fakeApi({
      'GET /api/v1/borrower/login/init': () => ok({ ...LOGIN_INIT_IN, voiceCodeOffered: false, resendSeconds: 0 }),
      'POST /api/v1/borrower/login/sms-code': () => ok({ resendSeconds: 0, expiresInSeconds: 300, phoneMasked: '+91 ******3210', deliveryConfirmed: true }),
    });
    const { user } = await openLogin();
    await user.type(field('Mobile number'), '9876543210');
    await user.click(screen.getByRole('button', { name: 'Get code' }));
    expect(await screen.findByRole('button', { name: 'Resend code' })).toBeEnabled();
    expect(screen.queryByRole('button', { name: 'Get a voice call instead' })).toBeNull();
  });

  it('disables the button while the code is being sent, and asks again for a number edited after sending', async () => {
    const pending = deferred();
    fakeApi({ 'POST /api/v1/borrower/login/sms-code': () => pending.promise });
    const { user } = await openLogin();
    await user.type(field('Mobile number'), '9876543210');
    await user.click(screen.getByRole('button', { name: 'Get code' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Get code' })).toBeDisabled());
    pending.resolve(ok({ resendSeconds: 60, expiresInSeconds: 300, phoneMasked: '+91 ******3210', deliveryConfirmed: true }));
    expect(await screen.findByRole('button', { name: 'Resend code in 60 s' })).toBeDisabled();

    await user.type(field('Mobile number'), '{Backspace}1');
    expect(screen.getByRole('button', { name: 'Get code' })).toBeEnabled();
  });

  it('logs in with the code and lands on home', async () => {
    const api = fakeApi({ 'GET /api/v1/borrower/home': () => ok(HOME_NEW) });
    const { user } = await openLogin();
    await user.type(field('Mobile number'), '9876543210');
    await user.click(screen.getByRole('button', { name: 'Get code' }));
    await screen.findByText('We sent a code by SMS to +91 ******3210.');
    await user.type(field('Verification code'), '12a3456');
    expect(field('Verification code')).toHaveValue('123456');
    await user.click(screen.getByRole('button', { name: 'Log in' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Home' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/app/home');
    expect(await screen.findByRole('article', { name: 'Flexi 6 Weeks' })).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/borrower/login')[0]!.body).toEqual({ market: 'IN', phone: '+919876543210', code: '123456' });
  });

  it('checks the code is there and has six digits before sending it', async () => {
    const api = fakeApi();
    const { user } = await openLogin();
    await user.type(field('Mobile number'), '9876543210');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    expect(within(fieldBox('Verification code')).getByText('Enter the code we sent you.')).toBeInTheDocument();
    await user.type(field('Verification code'), '123');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    expect(within(fieldBox('Verification code')).getByText('The code has 6 digits.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/borrower/login')).toHaveLength(0);
  });
});

describe('login refusals', () => {
  async function typePhoneAndAsk(user: ReturnType<typeof userEvent.setup>) {
    await user.type(field('Mobile number'), '9876543210');
    await user.click(screen.getByRole('button', { name: 'Get code' }));
  }

  async function typeCodeAndLogIn(user: ReturnType<typeof userEvent.setup>) {
    await user.type(field('Mobile number'), '9876543210');
    await user.type(field('Verification code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
  }

  it('shows a phone refusal as a toast and under the field', async () => {
    fakeApi({
      'POST /api/v1/borrower/login/sms-code': () =>
        refusal(422, 'validation_failed', 'Please check the highlighted fields.', { fields: { phone: 'This number cannot receive codes.' } }),
    });
    const { user } = await openLogin();
    await typePhoneAndAsk(user);
    expect(await screen.findByText('Please check the highlighted fields.')).toBeInTheDocument();
    expect(within(fieldBox('Mobile number')).getByText('This number cannot receive codes.')).toBeInTheDocument();
  });

  it('counts down the wait the server asks for when a code is asked too soon', async () => {
    fakeApi({
      'POST /api/v1/borrower/login/sms-code': () =>
        refusal(429, 'code_resend_too_soon', 'Please wait 42 seconds before asking for a new code.', { headers: { 'Retry-After': '42' } }),
    });
    const { user } = await openLogin();
    await typePhoneAndAsk(user);
    expect(await screen.findByText('Please wait 42 seconds before asking for a new code.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Resend code in 42 s' })).toBeDisabled();
  });

  it('shows the daily limit as a toast', async () => {
    fakeApi({ 'POST /api/v1/borrower/login/sms-code': () => refusal(429, 'daily_limit_reached', 'Too many codes today. Try again tomorrow.') });
    const { user } = await openLogin();
    await typePhoneAndAsk(user);
    expect(await screen.findByText('Too many codes today. Try again tomorrow.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Get code' })).toBeEnabled();
  });

  it('shows a wrong code as a toast and under the code field, and stays on the login screen', async () => {
    fakeApi({ 'POST /api/v1/borrower/login': () => refusal(400, 'code_invalid', 'The code is not right.', { fields: { code: 'Wrong code.' } }) });
    const { user } = await openLogin();
    await typeCodeAndLogIn(user);
    expect(await screen.findByText('The code is not right.')).toBeInTheDocument();
    expect(within(fieldBox('Verification code')).getByText('Wrong code.')).toBeInTheDocument();
    expect(field('Verification code')).toHaveValue('123456');
    expect(window.location.pathname).toBe('/app/login');
  });

  it('does not carry a refusal over to the next screen', async () => {
    let tries = 0;
    const api = fakeApi({
      'POST /api/v1/borrower/login': () => {
        if (++tries === 1) return refusal(400, 'code_invalid', 'The code is not right.', { fields: { code: 'Wrong code.' } });
        // The session the server opens: the signed-in screens ask who the borrower is.
        api.signIn();
        return ok({ sessionId: 's-1', borrower: { id: 'b-1', phoneMasked: '+91 ******3210', market: 'IN', isNew: true } });
      },
      'GET /api/v1/borrower/home': () => ok(HOME_NEW),
    });
    const { user } = await openLogin();
    await typeCodeAndLogIn(user);
    expect(await screen.findByText('The code is not right.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    expect(await screen.findByRole('article', { name: 'Flexi 6 Weeks' })).toBeInTheDocument();
    expect(screen.queryByText('The code is not right.')).toBeNull();
  });

  it.each([
    ['code_expired', 400, 'The code has expired. Ask for a new one.'],
    ['code_attempts_exceeded', 429, 'Too many wrong codes. Ask for a new one.'],
  ])('shows %s as a toast and clears the spent code', async (code, status, msg) => {
    fakeApi({ 'POST /api/v1/borrower/login': () => refusal(status, code, msg) });
    const { user } = await openLogin();
    await typeCodeAndLogIn(user);
    expect(await screen.findByText(msg)).toBeInTheDocument();
    expect(field('Verification code')).toHaveValue('');
  });

  it('says so when the network fails', async () => {
    fakeApi({
      'POST /api/v1/borrower/login': () => {
        throw new TypeError('Failed to fetch');
      },
    });
    const { user } = await openLogin();
    await typeCodeAndLogIn(user);
    expect(await screen.findByText('We could not reach the server. Check your connection and try again.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Log in' })).toBeEnabled();
  });

  it('shows an error state with a retry when the login page cannot be set up', async () => {
    let fail = true;
    fakeApi({ 'GET /api/v1/borrower/login/init': () => (fail ? refusal(500, 'internal', 'Something went wrong on our side.') : ok(LOGIN_INIT_IN)) });
    const user = userEvent.setup();
    renderBorrower('/app/login?lang=1');
    expect(await screen.findByRole('alert')).toHaveTextContent('The log-in page could not be loaded.');
    expect(screen.getByRole('alert')).toHaveTextContent('Something went wrong on our side.');
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByLabelText('Mobile number')).toBeInTheDocument();
  });
});

describe('login (Indonesia)', () => {
  it('uses +62, Indonesian texts and numbers that start with 08', async () => {
    const api = fakeApi({
      'POST /api/v1/borrower/login/sms-code': () => ok({ resendSeconds: 60, expiresInSeconds: 300, phoneMasked: '+62 *******7890', deliveryConfirmed: true }),
    });
    const { user } = await openLogin('/app/login');
    expect(api.callsTo('GET', '/api/v1/borrower/login/init')[0]!.query.get('market')).toBe('ID');
    expect(screen.getByRole('heading', { level: 1, name: 'Masuk' })).toBeInTheDocument();
    expect(within(fieldBox('Nomor ponsel')).getByText('+62')).toBeInTheDocument();
    expect(screen.getByRole('contentinfo')).toHaveTextContent(`Pinjaman diberikan oleh ${DEV_SETTINGS.lenderName}.`);

    await user.type(field('Nomor ponsel'), '0212345678');
    await user.click(screen.getByRole('button', { name: 'Kirim kode' }));
    expect(within(fieldBox('Nomor ponsel')).getByText('Masukkan nomor ponsel 10 sampai 13 digit yang diawali 08.')).toBeInTheDocument();

    await user.clear(field('Nomor ponsel'));
    await user.type(field('Nomor ponsel'), '081234567890');
    expect(field('Nomor ponsel')).toHaveValue('0812-3456-7890');
    await user.click(screen.getByRole('button', { name: 'Kirim kode' }));
    expect(await screen.findByText('Kami mengirim kode lewat SMS ke +62 *******7890.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Kirim ulang kode dalam 60 dtk' })).toBeDisabled();
    const [sent] = api.callsTo('POST', '/api/v1/borrower/login/sms-code');
    expect(sent!.body).toEqual({ market: 'ID', phone: '+6281234567890' });
    expect(sent!.headers).toMatchObject({ 'Accept-Language': 'id-ID' });
  });

  it('links to the loan agreement and the privacy policy inside the app', async () => {
    fakeApi({ 'GET /api/v1/borrower/privacy': () => ok(PRIVACY_ID) });
    const { user } = await openLogin('/app/login');
    expect(screen.getByRole('link', { name: 'perjanjian pinjaman' })).toHaveAttribute('href', '/app/agreement');
    // Signing in accepts the privacy policy, never a loan: a loan's agreement is accepted when that loan is confirmed.
    const consent = screen.getByRole('link', { name: 'perjanjian pinjaman' }).closest('p')!;
    expect(consent).toHaveTextContent('Masuk tidak berarti menyetujui pinjaman apa pun');
    expect(consent).not.toHaveTextContent(/Anda menyetujui perjanjian pinjaman/);
    await user.click(screen.getByRole('link', { name: 'kebijakan privasi' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Kebijakan privasi' })).toBeInTheDocument();
    // The policy is public: fetched from the server without a session.
    expect(await screen.findByText(/tidak pernah membaca daftar kontak, SMS, riwayat panggilan, daftar aplikasi, foto/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Kembali' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Masuk' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/app/login');
  });

  it('says in English that logging in accepts no loan agreement', async () => {
    fakeApi();
    await openLogin('/app/login?lang=1');
    const consent = screen.getByRole('link', { name: 'agreement' }).closest('p')!;
    expect(consent).toHaveTextContent(
      "By logging in you agree to the privacy policy. Logging in does not accept any loan: you read and accept a loan's agreement and Key Fact Statement only when you confirm that loan.",
    );
    expect(consent).not.toHaveTextContent(/accept the loan agreement/);
  });

  it('offers the other market as a full page load', async () => {
    fakeApi();
    await openLogin('/app/login');
    expect(screen.getByRole('link', { name: 'English (India)' })).toHaveAttribute('href', '/app/login?lang=1');
  });
});
