import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { DEV_SETTINGS_BY_MARKET, type SiteSettings } from '@/shared/settings/settings';
import { ME_IN, fakeApi, ok, refusal, renderBorrower } from '@/test/render-borrower';
import { HOME_NEW } from './screens/home/fixtures.test-data';

describe('borrower app', () => {
  it('sends a call that answers 401 to the login screen, and back after logging in', async () => {
    const api = fakeApi();
    const user = userEvent.setup();
    renderBorrower('/app/me?lang=1');
    await user.type(await screen.findByLabelText('Mobile number'), '9876543210');
    expect(window.location.pathname).toBe('/app/login');
    await user.type(screen.getByLabelText('Verification code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Log in' }));
    expect(await screen.findByText('+91 ******3210')).toBeInTheDocument();
    expect(window.location.pathname).toBe('/app/me');
    expect(api.callsTo('GET', '/api/v1/borrower/me').length).toBe(2);
  });

  it('tells a borrower whose session ended why, on the login screen, in their language', async () => {
    const expired = 'You were signed out because your session expired. Please log in again.';
    fakeApi({ 'GET /api/v1/borrower/me': () => refusal(401, 'unauthorized', expired, { headers: { 'X-Signed-Out': 'expired' } }) });
    const first = renderBorrower('/app/me?lang=1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Log in' })).toBeInTheDocument();
    expect(await screen.findByText(expired)).toHaveAttribute('role', 'status');
    first.unmount();

    const deleted = 'Anda keluar karena akun ini sudah dihapus.';
    fakeApi({ 'GET /api/v1/borrower/me': () => refusal(401, 'unauthorized', deleted, { headers: { 'X-Signed-Out': 'account_deleted' } }) });
    renderBorrower('/app/me');
    expect(await screen.findByText(deleted)).toBeInTheDocument();
  });

  it('says nothing more than "log in" to someone who was not signed in', async () => {
    fakeApi({ 'GET /api/v1/borrower/me': () => refusal(401, 'unauthorized', 'Please log in again.') });
    renderBorrower('/app/me?lang=1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Log in' })).toBeInTheDocument();
    expect(screen.queryByText('Please log in again.')).not.toBeInTheDocument();
  });

  it('lands a signed-in borrower on home from /app/, with tabs to their loans and their account', async () => {
    fakeApi({ 'GET /api/v1/borrower/home': () => ok(HOME_NEW), 'GET /api/v1/borrower/orders': () => ok([]) }).signIn();
    const user = userEvent.setup();
    renderBorrower('/app/?lang=1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Home' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/app/home');
    const tabs = screen.getByRole('navigation', { name: 'Main' });
    expect(within(tabs).getAllByRole('link').map((link) => [link.textContent, link.getAttribute('href')])).toEqual([
      ['Home', '/app/home'],
      ['My loans', '/app/orders'],
      ['My account', '/app/me'],
    ]);
    expect(within(tabs).getByRole('link', { name: 'Home' })).toHaveAttribute('aria-current', 'page');

    // Each screen draws its own tab bar: look it up again after moving.
    const tabBar = () => screen.getByRole('navigation', { name: 'Main' });
    await user.click(within(tabBar()).getByRole('link', { name: 'My loans' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'My loans' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/app/orders');
    await user.click(within(tabBar()).getByRole('link', { name: 'My account' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'My account' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/app/me');
    expect(within(tabBar()).getByRole('link', { name: 'My account' })).toHaveAttribute('aria-current', 'page');
  });

  it('keeps the market chosen by lang for the rest of the visit', async () => {
    fakeApi();
    const first = renderBorrower('/app/login?lang=1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Log in' })).toBeInTheDocument();
    first.unmount();

    // A later page load without lang, as after a reload of a path the app navigated to.
    const api = fakeApi();
    renderBorrower('/app/login');
    expect(await screen.findByRole('heading', { level: 1, name: 'Log in' })).toBeInTheDocument();
    // The heading renders before the screen's first call: wait for the call, not just the page.
    await waitFor(() => expect(api.callsTo('GET', '/api/v1/borrower/login/init')).toHaveLength(1));
    expect(api.callsTo('GET', '/api/v1/borrower/login/init')[0]!.query.get('market')).toBe('IN');
  });

  it('strips a URL sessionId from the address bar before anything renders and never sends it', async () => {
    const api = fakeApi({ 'GET /api/v1/borrower/me': () => refusal(401, 'unauthorized', 'Please log in.') });
    const before = window.history.length;
    renderBorrower('/app/me?lang=1&sessionId=attacker-token&channel=gp#top');
    // Synchronously, as the app boots: gone from the address bar, with this history entry replaced, not added to.
    expect(window.location.search).toBe('?lang=1&channel=gp');
    expect(window.location.hash).toBe('#top');
    expect(window.history.length).toBe(before);
    expect(await screen.findByRole('heading', { level: 1, name: 'Log in' })).toBeInTheDocument();
    expect(api.callsTo('GET', '/api/v1/borrower/me')[0]!.headers).toMatchObject({ 'X-App-Channel': 'gp' });
    await waitFor(() => expect(api.callsTo('GET', '/api/v1/borrower/login/init')).toHaveLength(1));
    for (const call of api.calls) {
      expect(call.headers).not.toHaveProperty('X-Session-Id');
      expect(JSON.stringify(call)).not.toContain('attacker-token');
    }
    expect(window.location.href).not.toContain('attacker-token');
  });

  it("exchanges the native shell's hand-over code once, before the first screen's calls, and strips it", async () => {
    const api = fakeApi({
      'POST /api/v1/borrower/session/exchange': () => {
        api.signIn();
        return ok({ borrower: ME_IN, opened: true });
      },
    });
    renderBorrower('/app/me?lang=1&handover=code-1&sessionId=old-style');
    expect(window.location.search).toBe('?lang=1');
    expect(await screen.findByText('+91 ******3210')).toBeInTheDocument();
    const exchanges = api.callsTo('POST', '/api/v1/borrower/session/exchange');
    expect(exchanges).toHaveLength(1);
    expect(exchanges[0]!.body).toEqual({ code: 'code-1' });
    // Nothing asked for the borrower before the browser had its session.
    expect(api.calls.findIndex((call) => call.path === '/api/v1/borrower/me')).toBeGreaterThan(api.calls.indexOf(exchanges[0]!));
    for (const call of api.calls) expect(call.headers).not.toHaveProperty('X-Session-Id');
    expect(window.location.href).not.toContain('code-1');
  });

  it("keeps the browser's own session when the code is somebody else's, and says so", async () => {
    const api = fakeApi({
      'POST /api/v1/borrower/session/exchange': () => refusal(409, 'signed_in_as_another', 'This browser is signed in to another Kilat account.'),
    });
    api.signIn();
    renderBorrower('/app/me?lang=1&handover=attackers-code');
    expect(await screen.findByText('+91 ******3210')).toBeInTheDocument();
    const notice = screen.getByRole('alert');
    expect(notice).toHaveTextContent('already signed in to another Kilat account, and it stays signed in');
    expect(window.location.search).toBe('?lang=1');
    await userEvent.setup().click(within(notice).getByRole('button', { name: 'Got it' }));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('says so when the hand-over link was used or has expired, and offers the login', async () => {
    fakeApi({ 'POST /api/v1/borrower/session/exchange': () => refusal(400, 'handover_invalid', 'Used or expired.') });
    renderBorrower('/app/me?lang=0&handover=used');
    expect(await screen.findByRole('heading', { level: 1, name: 'Masuk' })).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('Tautan masuk ini sudah dipakai atau kedaluwarsa');
  });

  it('shows a not-found notice for an unknown path, with the lender still named', async () => {
    fakeApi();
    renderBorrower('/app/nowhere?lang=1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Page not found' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to my account' })).toHaveAttribute('href', '/app/me');
    expect(screen.getByRole('contentinfo')).toHaveTextContent('Loans are made by');
  });

  it('has an error notice page with a reload', async () => {
    fakeApi();
    renderBorrower('/app/error');
    expect(await screen.findByRole('heading', { level: 1, name: 'Terjadi kesalahan' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Muat ulang' })).toBeInTheDocument();
  });

  it('shows each market its own company on the about page, and never the other market’s', async () => {
    const { in: india, id: indonesia } = DEV_SETTINGS_BY_MARKET;
    const foreign = (settings: SiteSettings) => [settings.lenderName, settings.licence, settings.grievanceOfficer.name, settings.servicePhone, settings.address];

    fakeApi().signIn();
    const indian = renderBorrower('/app/about?lang=1');
    expect(await screen.findByText(india.licence, { selector: '.about__licence' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 2, name: 'Grievance officer' })).toBeInTheDocument();
    for (const value of foreign(indonesia)) expect(document.body).not.toHaveTextContent(value);
    indian.unmount();

    fakeApi().signIn();
    renderBorrower('/app/about?lang=0');
    expect(await screen.findByText(indonesia.licence, { selector: '.about__licence' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 2, name: 'Pejabat Pengaduan' })).toBeInTheDocument();
    expect(screen.getByRole('contentinfo')).toHaveTextContent(`Pinjaman diberikan oleh ${indonesia.lenderName}.${indonesia.licence}`);
    for (const value of foreign(india)) expect(document.body).not.toHaveTextContent(value);
  });

  it('asks for India’s company when the visit chose India but the page carried Indonesia’s', async () => {
    window.sessionStorage.setItem('kilat.market', 'in');
    const api = fakeApi();
    api.signIn();
    // No `lang` in the URL: the server wrote the Indonesian page's settings.
    renderBorrower('/app/about', { settings: DEV_SETTINGS_BY_MARKET.id });
    expect(await screen.findByText(DEV_SETTINGS_BY_MARKET.in.licence, { selector: '.about__licence' })).toBeInTheDocument();
    expect(api.callsTo('GET', '/api/v1/site/settings').map((call) => call.query.get('market'))).toEqual(['IN']);
    expect(document.body).not.toHaveTextContent(DEV_SETTINGS_BY_MARKET.id.lenderName);
  });

  it('shows the agreement with the lender and the grievance officer', async () => {
    fakeApi();
    renderBorrower('/app/agreement?lang=1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Loan agreement' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 2, name: 'Cooling-off period' })).toBeInTheDocument();
    expect(screen.getByText('Grievance officer: P. Officer, grievance@in.kilat.example, +91 80 0000 0199.')).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Cost caps' })).toBeNull();
  });
});
