import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { DEV_SETTINGS, DEV_SETTINGS_BY_MARKET } from '@/shared/settings/settings';
import { ME_IN, deferred, fakeApi, ok, refusal, renderBorrower } from '@/test/render-borrower';

describe('account screen', () => {
  it('shows the signed-in borrower, the help links, customer service and the lender', async () => {
    const api = fakeApi();
    api.signIn();
    renderBorrower('/app/me?lang=1');
    expect(screen.getByText('Loading…')).toBeInTheDocument();

    expect(await screen.findByText('+91 ******3210')).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1, name: 'My account' })).toBeInTheDocument();
    expect(screen.getByText('India')).toBeInTheDocument();
    expect(screen.getByText('15 January 2026')).toBeInTheDocument();
    const menu = screen.getByRole('main');
    expect(within(menu).getByRole('link', { name: 'My loans' })).toHaveAttribute('href', '/app/orders');
    expect(within(menu).getByRole('link', { name: 'My details' })).toHaveAttribute('href', '/app/certification');
    expect(within(menu).getByRole('link', { name: 'About us' })).toHaveAttribute('href', '/app/about');
    expect(within(menu).getByRole('link', { name: 'Privacy policy' })).toHaveAttribute('href', '/app/privacy');
    expect(within(menu).getByRole('link', { name: 'Loan agreement' })).toHaveAttribute('href', '/app/agreement');
    expect(within(menu).getByRole('button', { name: 'Log out' })).toBeInTheDocument();
    // "Delete account" is the menu's last entry, after the app's own (My details, Loan agreement).
    const entries = within(screen.getByRole('heading', { level: 2, name: 'Menu' }).closest('.adm-list') as HTMLElement).getAllByRole('link');
    expect(entries.at(-1)).toHaveTextContent('Delete account');
    expect(entries.at(-1)).toHaveAttribute('href', '/app/account/delete');
    const india = DEV_SETTINGS_BY_MARKET.in;
    expect(screen.getByRole('link', { name: india.servicePhone })).toHaveAttribute('href', 'tel:+918000000100');
    expect(screen.getByRole('link', { name: india.whatsappNumber })).toHaveAttribute('href', 'https://wa.me/919000000100');
    expect(within(screen.getByRole('contentinfo')).getByText(`Loans are made by ${india.lenderName}.`)).toBeInTheDocument();
  });

  it('takes the lender and customer service from the settings API when the page carried none', async () => {
    fakeApi({
      'GET /api/v1/site/settings': () => ok({ ...DEV_SETTINGS, lenderName: 'PT Contoh Pendanaan' }),
      'GET /api/v1/borrower/me': () => ok({ ...ME_IN, phoneMasked: '+62 *******7890', market: 'ID' }),
    });
    renderBorrower('/app/me', { settings: null });
    expect(await screen.findByText('Pinjaman diberikan oleh PT Contoh Pendanaan.')).toBeInTheDocument();
    expect(await screen.findByText('+62 *******7890')).toBeInTheDocument();
    expect(screen.getByText('Indonesia')).toBeInTheDocument();
    expect(screen.getByText('15 Januari 2026')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Tentang kami' })).toHaveAttribute('href', '/app/about');
    expect(screen.getByRole('link', { name: 'Data diri saya' })).toHaveAttribute('href', '/app/certification');
  });

  it('logs out, forgets the borrower and returns to the login screen', async () => {
    const pending = deferred();
    const api = fakeApi({ 'POST /api/v1/borrower/logout': () => pending.promise });
    api.signIn();
    const user = userEvent.setup();
    const { app } = renderBorrower('/app/me?lang=1');
    await user.click(await screen.findByRole('button', { name: 'Log out' }));
    expect(screen.getByRole('button', { name: 'Log out' })).toBeDisabled();
    pending.resolve(ok(null));

    expect(await screen.findByRole('heading', { level: 1, name: 'Log in' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/app/login');
    expect(api.callsTo('POST', '/api/v1/borrower/logout')).toHaveLength(1);
    expect(app.queryClient.getQueryData(['borrower', 'me'])).toBeUndefined();
  });

  it('keeps the borrower signed in and says so when logging out fails', async () => {
    const api = fakeApi({ 'POST /api/v1/borrower/logout': () => refusal(500, 'internal', 'Something went wrong on our side.') });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/me?lang=1');
    await user.click(await screen.findByRole('button', { name: 'Log out' }));
    expect(await screen.findByText('Something went wrong on our side.')).toBeInTheDocument();
    expect(window.location.pathname).toBe('/app/me');
    expect(screen.getByRole('button', { name: 'Log out' })).toBeEnabled();
  });

  it('shows an error state with a retry when the account cannot be loaded', async () => {
    let fail = true;
    fakeApi({ 'GET /api/v1/borrower/me': () => (fail ? refusal(503, 'internal', 'Service unavailable.') : ok(ME_IN)) });
    const user = userEvent.setup();
    renderBorrower('/app/me?lang=1');
    expect(await screen.findByRole('alert')).toHaveTextContent('Your account could not be loaded.');
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('+91 ******3210')).toBeInTheDocument();
  });
});
