import { useRef, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { MARKETS, withLang } from '@/shared/market/market';
import { useMarket } from '@/shared/market/market-context';
import { Link, navigate, scrollToTop, useLocation } from '@/shared/router/router';
import { useSettings } from '@/shared/settings/settings-context';
import { appLoginHref } from '../app-links';

export type SiteTab = 'home' | 'contact';
export const SITE_TABS: SiteTab[] = ['home', 'contact'];

/** The selected tab lives in the URL hash, so Back returns to the previous tab. */
export function tabFromHash(hash: string): SiteTab {
  return hash === '#contact' ? 'contact' : 'home';
}

export function TopBar() {
  const { t } = useTranslation();
  const settings = useSettings();
  const market = useMarket();
  const { path, hash } = useLocation();
  const other = market.id === 'in' ? MARKETS.id : MARKETS.in;

  return (
    <header className="top-bar">
      <div className="top-bar__inner">
        <h1 className="top-bar__brand">
          <Link href={withLang('/', market)}>{settings.companyName}</Link>
        </h1>
        <div className="top-bar__links">
          <a className="top-bar__login" href={appLoginHref(market)}>
            {t('nav.login')}
          </a>
          <a className="top-bar__market" href={withLang(`${path}${hash}`, other)} lang={other.language} hrefLang={other.locale}>
            {t('nav.otherMarket')}
          </a>
        </div>
      </div>
      {path === '/' ? <SectionTabs selected={tabFromHash(hash)} /> : <SectionLinks />}
    </header>
  );
}

function SectionTabs({ selected }: { selected: SiteTab }) {
  const { t } = useTranslation();
  const refs = useRef<Record<SiteTab, HTMLButtonElement | null>>({ home: null, contact: null });

  // Only the hash changes, so the rest of the URL (lang, sessionId, channel...) stays as it is.
  const choose = (tab: SiteTab) => {
    if (tab !== selected) {
      const { pathname, search } = window.location;
      navigate(`${pathname}${search}${tab === 'contact' ? '#contact' : ''}`);
    }
    scrollToTop();
  };

  // Arrow keys, Home and End move between tabs (WAI-ARIA tabs pattern, automatic activation).
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const at = SITE_TABS.indexOf(selected);
    const target =
      event.key === 'ArrowRight' ? SITE_TABS[(at + 1) % SITE_TABS.length]
      : event.key === 'ArrowLeft' ? SITE_TABS[(at - 1 + SITE_TABS.length) % SITE_TABS.length]
      : event.key === 'Home' ? SITE_TABS[0]
      : event.key === 'End' ? SITE_TABS[SITE_TABS.length - 1]
      : undefined;
    if (!target) return;
    event.preventDefault();
    choose(target);
    refs.current[target]?.focus();
  };

  return (
    <div className="tabs" role="tablist" aria-label={t('nav.sections')} onKeyDown={onKeyDown}>
      {SITE_TABS.map((tab) => (
        <button
          key={tab}
          ref={(el) => {
            refs.current[tab] = el;
          }}
          type="button"
          role="tab"
          id={`tab-${tab}`}
          className="tabs__tab"
          aria-selected={tab === selected}
          aria-controls={`panel-${tab}`}
          tabIndex={tab === selected ? 0 : -1}
          onClick={() => choose(tab)}
        >
          {t(tab === 'home' ? 'nav.home' : 'nav.contact')}
        </button>
      ))}
    </div>
  );
}

/** Away from the home page the same two places are plain links back to it. */
function SectionLinks() {
  const { t } = useTranslation();
  const market = useMarket();
  return (
    <nav className="tabs" aria-label={t('nav.links')}>
      <Link className="tabs__tab" href={withLang('/', market)}>
        {t('nav.home')}
      </Link>
      <Link className="tabs__tab" href={withLang('/#contact', market)}>
        {t('nav.contact')}
      </Link>
    </nav>
  );
}
