import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { hydrateRoot } from 'react-dom/client';
import { describe, expect, it, vi } from 'vitest';
import { createHttpClient } from '@/shared/api/http';
import { MARKETS, type MarketId } from '@/shared/market/market';
import { DEV_SETTINGS_BY_MARKET, type SiteSettings } from '@/shared/settings/settings';

const INDIA = DEV_SETTINGS_BY_MARKET.in;
const INDONESIA = DEV_SETTINGS_BY_MARKET.id;
import { renderSite } from '@/test/render-site';
import { SiteApp } from './app';
import { render as prerender } from './entry-server';
import { createSiteI18n } from './i18n/site-i18n';

describe('site (India, English)', () => {
  it('shows the top bar with the company name and the Home and Contact Us tabs', () => {
    renderSite('/?lang=1');
    expect(screen.getByRole('heading', { level: 1, name: 'Kilat' })).toBeInTheDocument();
    expect(screen.getAllByRole('heading', { level: 1 })).toHaveLength(1);
    expect(screen.getByRole('tab', { name: 'Home' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('tab', { name: 'Contact Us' })).toHaveAttribute('aria-selected', 'false');
    expect(screen.getByRole('banner')).toBeInTheDocument();
    expect(screen.getByRole('main')).toBeInTheDocument();
    expect(screen.getByRole('contentinfo')).toBeInTheDocument();
  });

  it('shows the offer, audience, steps and promises in rupees', () => {
    renderSite('/?lang=1');
    expect(screen.getByRole('heading', { name: 'Instant loans from ₹2,000 to ₹80,000' })).toBeInTheDocument();
    expect(screen.getByText(/within 2 hours/)).toBeInTheDocument();
    expect(screen.getByText('For salaried people earning at least ₹12,000 a month.')).toBeInTheDocument();
    expect(screen.getByText('Trusted by 3 million users.')).toBeInTheDocument();
    const steps = within(screen.getByRole('region', { name: 'Get a loan in 3 steps' })).getAllByRole('listitem');
    expect(steps).toHaveLength(3);
    for (const promise of ['Quick application', 'Flexible repayment', 'Your data kept safe', 'Customer service']) {
      expect(screen.getByRole('heading', { name: promise })).toBeInTheDocument();
    }
  });

  it('shows the company and grievance officer from settings in the footer', () => {
    renderSite('/?lang=1', { ...INDIA, companyName: 'Contoh Finance', copyright: '© 2026 Contoh' });
    const footer = screen.getByRole('contentinfo');
    expect(within(footer).getByText('Contoh Finance')).toBeInTheDocument();
    expect(within(footer).getByText(INDIA.address)).toBeInTheDocument();
    expect(within(footer).getByRole('link', { name: INDIA.email })).toHaveAttribute('href', `mailto:${INDIA.email}`);
    expect(within(footer).getByText('© 2026 Contoh')).toBeInTheDocument();
    expect(within(footer).getByText(INDIA.grievanceOfficer.name)).toBeInTheDocument();
    expect(within(footer).getByRole('link', { name: INDIA.grievanceOfficer.email })).toBeInTheDocument();
    expect(within(footer).getByRole('link', { name: INDIA.grievanceOfficer.phone })).toBeInTheDocument();
  });

  it('switches tabs, scrolls smoothly to the top, and keeps lang in every link', async () => {
    const user = userEvent.setup();
    renderSite('/?lang=1');
    await user.click(screen.getByRole('tab', { name: 'Contact Us' }));
    expect(screen.getByRole('tab', { name: 'Contact Us' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('tabpanel', { name: 'Contact Us' })).toBeVisible();
    expect(screen.queryByRole('tabpanel', { name: 'Home' })).toBeNull();
    expect(window.scrollTo).toHaveBeenLastCalledWith({ top: 0, behavior: 'smooth' });
    expect(window.location.search).toBe('?lang=1');

    await user.keyboard('{ArrowLeft}');
    expect(screen.getByRole('tab', { name: 'Home' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('tab', { name: 'Home' })).toHaveFocus();

    for (const link of screen.getAllByRole('link')) {
      const href = link.getAttribute('href') ?? '';
      if (href.startsWith('/') && link.textContent !== 'Bahasa Indonesia') expect(href).toContain('lang=1');
    }
    expect(screen.getByRole('link', { name: 'Bahasa Indonesia' })).toHaveAttribute('href', '/');
  });

  it('routes to /about from the home page', async () => {
    const user = userEvent.setup();
    renderSite('/?lang=1');
    await user.click(screen.getAllByRole('link', { name: 'About Kilat' })[0]!);
    expect(window.location.pathname).toBe('/about');
    expect(screen.getByRole('heading', { level: 2, name: 'About Kilat' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Flexible repayment' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Contact Us' })).toHaveAttribute('href', '/?lang=1#contact');
  });
});

describe('site (Indonesia, Indonesian)', () => {
  it('shows the Indonesian texts and rupiah with dot grouping', () => {
    renderSite('/');
    expect(screen.getByRole('tab', { name: 'Beranda' })).toBeInTheDocument();
    expect(screen.getByRole('tab', { name: 'Hubungi Kami' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 2, name: /^Pinjaman cepat Rp.1\.000\.000 hingga Rp.15\.000\.000$/ })).toBeInTheDocument();
    expect(screen.getByText(/penghasilan tahunan minimal Rp.5\.000\.000/)).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Pinjam dalam 3 langkah' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'English (India)' })).toHaveAttribute('href', '/?lang=1');
  });

  it('opens the About page directly at /about', () => {
    renderSite('/about');
    expect(screen.getByRole('heading', { level: 2, name: 'Tentang Kilat' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Kembali ke beranda' })).toHaveAttribute('href', '/');
  });

  it('selects the Contact Us tab from the #contact hash', () => {
    renderSite('/#contact');
    expect(screen.getByRole('tab', { name: 'Hubungi Kami' })).toHaveAttribute('aria-selected', 'true');
  });
});

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A market's company as the footer shows it. */
const footerOf = (s: SiteSettings) => [s.lenderName, s.licence, s.address, s.email, s.copyright, s.grievanceOfficer.name, s.grievanceOfficer.email, s.grievanceOfficer.phone];

describe('one company per market (PRODUCT.md §5)', () => {
  it.each<[string, SiteSettings, SiteSettings, string, string]>([
    ['/', INDONESIA, INDIA, 'Pejabat Pengaduan', 'Kontak OJK 157'],
    ['/?lang=1', INDIA, INDONESIA, 'Grievance officer', 'cms.rbi.org.in'],
  ])('the page at %s shows its own market’s company in the footer and none of the other’s', (url, own, other, officerTitle, escalation) => {
    renderSite(url);
    const footer = screen.getByRole('contentinfo');
    for (const value of footerOf(own)) expect(footer).toHaveTextContent(value);
    expect(within(footer).getByText(own.licence)).toHaveClass('site-footer__licence');
    expect(within(footer).getByText(officerTitle)).toBeInTheDocument();
    expect(footer).toHaveTextContent(escalation);
    for (const value of [...footerOf(other), other.servicePhone, other.whatsappNumber]) expect(document.body).not.toHaveTextContent(value);
  });

  it.each<[string, SiteSettings]>([
    ['/#contact', INDONESIA],
    ['/?lang=1#contact', INDIA],
  ])('the contact section at %s gives its own market’s service phone and WhatsApp', (url, own) => {
    renderSite(url);
    const contact = screen.getByRole('tabpanel');
    expect(within(contact).getByRole('link', { name: own.servicePhone })).toBeInTheDocument();
    expect(contact).toHaveTextContent(own.whatsappNumber);
    // WhatsApp is a link to the chat (wa.me takes the number's digits only).
    const whatsapp = within(contact).getByRole('link', { name: new RegExp(`WhatsApp.*${own.whatsappNumber.replace(/[+]/g, '\\+')}`) });
    expect(whatsapp).toHaveAttribute('href', `https://wa.me/${own.whatsappNumber.replace(/\D/g, '')}`);
  });

  it.each([
    ['/?lang=1', 'Sign in with your phone number and fill in your details, then choose the amount', 'the loan ends once you have repaid it'],
    ['/', 'isi data diri, lalu pilih jumlah pinjaman', 'pinjaman selesai setelah Anda melunasinya'],
  ])('the loan steps at %s follow the app’s order in loan words', (url, first, last) => {
    renderSite(url);
    const steps = screen.getByRole('heading', { level: 2, name: /3 (steps|langkah)/ }).closest('section')!;
    const items = within(steps).getAllByRole('listitem');
    expect(items).toHaveLength(3);
    expect(items[0]).toHaveTextContent(first);
    expect(items[2]).toHaveTextContent(last);
    expect(steps).not.toHaveTextContent(/\border\b|pesanan/i);
  });
});

/** What the server does to a prerendered page: fill every placeholder with the market's settings. */
function fillPlaceholders(html: string, settings: SiteSettings): string {
  return html.replace(/%%KILAT:([a-zA-Z.]+)%%/g, (_, path: string) => {
    const value = path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], settings);
    if (typeof value !== 'string') throw new Error(`unknown placeholder ${path}`);
    return escapeHtml(value);
  });
}

describe('prerendering', () => {
  it.each<[string, MarketId, string]>([
    ['/', 'id', '/'],
    ['/', 'in', '/?lang=1'],
    ['/about', 'id', '/about'],
    ['/about', 'in', '/about?lang=1'],
  ])('renders %s for %s with placeholders, and the client hydrates it without a mismatch', async (route, marketId, url) => {
    const page = prerender(route, marketId);
    expect(page.html).toContain('%%KILAT:companyName%%');
    expect(page.html).toContain('%%KILAT:grievanceOfficer.email%%');
    expect(page.html).toContain('%%KILAT:licence%%');
    expect(page.title).toBe('%%KILAT:companyName%%');
    expect(page.lang).toBe(MARKETS[marketId].locale);

    window.history.replaceState(null, '', url);
    const container = document.createElement('div');
    const settings = DEV_SETTINGS_BY_MARKET[marketId];
    container.innerHTML = fillPlaceholders(page.html.replace(/<link rel="preload"[^>]*\/>/g, ''), settings);
    document.body.appendChild(container);
    const errors = vi.spyOn(console, 'error');
    const onRecoverableError = vi.fn();
    const market = MARKETS[marketId];
    let root: ReturnType<typeof hydrateRoot> | undefined;
    await act(async () => {
      root = hydrateRoot(
        container,
        <SiteApp
          market={market}
          settings={settings}
          i18n={createSiteI18n(market.language)}
          api={createHttpClient({ language: market.locale })}
          serverUrl={route}
        />,
        { onRecoverableError },
      );
    });
    expect(onRecoverableError).not.toHaveBeenCalled();
    expect(errors).not.toHaveBeenCalled();
    expect(within(container).getByRole('heading', { level: 1 })).toHaveTextContent(settings.companyName);
    expect(within(container).getByRole('contentinfo')).toHaveTextContent(settings.licence);
    act(() => root?.unmount());
    container.remove();
  });
});
