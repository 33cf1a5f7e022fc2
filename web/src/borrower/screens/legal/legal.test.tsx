import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { DEV_SETTINGS, DEV_SETTINGS_BY_MARKET } from '@/shared/settings/settings';

const INDIA = DEV_SETTINGS_BY_MARKET.in;
import { fakeApi, ok, refusal, renderBorrower } from '@/test/render-borrower';
import { PRIVACY_EN, PRIVACY_ID } from './fixtures.test-data';

describe('privacy policy', () => {
  it('shows the policy the server publishes, section by section, without a session', async () => {
    const api = fakeApi({ 'GET /api/v1/borrower/privacy': () => ok(PRIVACY_EN) });
    renderBorrower('/app/privacy?lang=1');
    expect(await screen.findByText('Last updated 1 Nov 2026.')).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1, name: 'Privacy policy' })).toBeInTheDocument();
    expect(screen.getAllByRole('heading', { level: 2 }).map((heading) => heading.textContent)).toEqual(['What we collect', 'What we never collect']);
    const collect = screen.getByRole('heading', { level: 2, name: 'What we collect' }).closest('section')!;
    expect(within(collect).getAllByText(/./, { selector: 'p' }).map((p) => p.textContent)).toEqual([
      'Your mobile number, to log you in.',
      'What you type into an application.',
    ]);
    const [call] = api.callsTo('GET', '/api/v1/borrower/privacy');
    expect(call!.headers['Accept-Language']).toBe('en-IN');
    // Public: the screen never asked who is signed in.
    expect(api.callsTo('GET', '/api/v1/borrower/me')).toHaveLength(0);
  });

  it('asks for it in Indonesian for Indonesia, and titles the page with the server’s title', async () => {
    const api = fakeApi({ 'GET /api/v1/borrower/privacy': () => ok({ ...PRIVACY_ID, title: 'Kebijakan privasi Kilat' }) });
    renderBorrower('/app/privacy');
    expect(await screen.findByRole('heading', { level: 1, name: 'Kebijakan privasi Kilat' })).toBeInTheDocument();
    expect(screen.getByText('Terakhir diperbarui 1 Nov 2026.')).toBeInTheDocument();
    expect(api.callsTo('GET', '/api/v1/borrower/privacy')[0]!.headers['Accept-Language']).toBe('id-ID');
  });

  it('shows an error state with a retry', async () => {
    let fail = true;
    fakeApi({ 'GET /api/v1/borrower/privacy': () => (fail ? refusal(503, 'internal', 'Service unavailable.') : ok(PRIVACY_EN)) });
    const user = userEvent.setup();
    renderBorrower('/app/privacy?lang=1');
    expect(await screen.findByRole('alert')).toHaveTextContent('The privacy policy could not be loaded.');
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { level: 2, name: 'What we never collect' })).toBeInTheDocument();
  });
});

describe('about us', () => {
  it('shows the company, the lender, the grievance officer and customer service from the settings', async () => {
    fakeApi().signIn();
    renderBorrower('/app/about?lang=1');
    expect(await screen.findByRole('heading', { level: 1, name: 'About us' })).toBeInTheDocument();
    expect(screen.getByText(`Kilat is run by ${INDIA.companyName}. Loans are made by ${INDIA.lenderName}. What we promise every borrower:`)).toBeInTheDocument();

    const company = screen.getByRole('heading', { level: 2, name: 'The company' }).closest('section')!;
    expect(company).toHaveTextContent(INDIA.address);
    expect(within(company).getByRole('link', { name: INDIA.email })).toHaveAttribute('href', `mailto:${INDIA.email}`);

    const lender = screen.getByRole('heading', { level: 2, name: 'The lender' }).closest('section')!;
    expect(lender).toHaveTextContent(INDIA.lenderName);
    expect(lender).toHaveTextContent(INDIA.licence);

    const grievance = screen.getByRole('heading', { level: 2, name: 'Grievance officer' }).closest('section')!;
    expect(grievance).toHaveTextContent(INDIA.grievanceOfficer.name);
    expect(within(grievance).getByRole('link', { name: INDIA.grievanceOfficer.email })).toHaveAttribute(
      'href',
      `mailto:${INDIA.grievanceOfficer.email}`,
    );
    expect(within(grievance).getByRole('link', { name: INDIA.grievanceOfficer.phone })).toHaveAttribute('href', 'tel:+918000000199');
    expect(grievance).toHaveTextContent("Reserve Bank of India's Ombudsman at cms.rbi.org.in");

    const service = screen.getByRole('heading', { level: 2, name: 'Customer service' }).closest('section')!;
    expect(within(service).getByRole('link', { name: INDIA.servicePhone })).toHaveAttribute('href', 'tel:+918000000100');
    expect(within(service).getByRole('link', { name: INDIA.whatsappNumber })).toHaveAttribute('href', 'https://wa.me/919000000100');
    expect(screen.getByText(INDIA.copyright)).toBeInTheDocument();
  });

  it('fetches the settings when the page carried none, and speaks Indonesian', async () => {
    fakeApi({ 'GET /api/v1/site/settings': () => ok({ ...DEV_SETTINGS, companyName: 'PT Kilat Teknologi' }) });
    renderBorrower('/app/about', { settings: null });
    expect(await screen.findByText(/Kilat dijalankan oleh PT Kilat Teknologi\./)).toBeInTheDocument();
    const officer = screen.getByRole('heading', { level: 2, name: 'Pejabat Pengaduan' }).closest('section')!;
    expect(officer).toHaveTextContent('Kontak OJK 157');
  });
});
