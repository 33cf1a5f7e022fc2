import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { DEV_SETTINGS_BY_MARKET, type SiteSettings } from '@/shared/settings/settings';
import { fakeApi, ok, refusal, renderBorrower } from '@/test/render-borrower';
import { HOME_NEW } from './screens/home/fixtures.test-data';
import { PRIVACY_EN } from './screens/legal/fixtures.test-data';

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

  it("keeps the native shell's session id after navigating, and drops it once the server refused it", async () => {
    const api = fakeApi({ 'GET /api/v1/borrower/me': () => refusal(401, 'unauthorized', 'Please log in.') });
    renderBorrower('/app/me?lang=1&sessionId=shell-1&channel=gp');
    expect(await screen.findByRole('heading', { level: 1, name: 'Log in' })).toBeInTheDocument();
    expect(api.callsTo('GET', '/api/v1/borrower/me')[0]!.headers).toMatchObject({ 'X-Session-Id': 'shell-1', 'X-App-Channel': 'gp' });
    // The login screen's own call, made after the 401, no longer sends the dead session.
    await waitFor(() => expect(api.callsTo('GET', '/api/v1/borrower/login/init')).toHaveLength(1));
    const init = api.callsTo('GET', '/api/v1/borrower/login/init')[0]!;
    expect(init.headers).toMatchObject({ 'X-Session-Id': '', 'X-App-Channel': 'gp' });
  });

  it('forwards the shell session on calls made after in-app navigation', async () => {
    const api = fakeApi({ 'GET /api/v1/borrower/privacy': () => ok(PRIVACY_EN) });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/me?lang=1&sessionId=shell-1');
    await user.click(await screen.findByRole('link', { name: 'Privacy policy' }));
    expect(window.location.search).toBe('');
    await user.click(await screen.findByRole('button', { name: 'Back' }));
    await user.click(await screen.findByRole('button', { name: 'Log out' }));
    await screen.findByRole('heading', { level: 1, name: 'Log in' });
    expect(api.callsTo('POST', '/api/v1/borrower/logout')[0]!.headers).toMatchObject({ 'X-Session-Id': 'shell-1' });
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
