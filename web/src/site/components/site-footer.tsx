import { useTranslation } from 'react-i18next';
import { withLang } from '@/shared/market/market';
import { useMarket } from '@/shared/market/market-context';
import { Link } from '@/shared/router/router';
import { useSettings } from '@/shared/settings/settings-context';

/**
 * The market's company: the lender with its licence (RBI registration or OJK licence), the grievance
 * officer (Pejabat Pengaduan in Indonesia) and where a complaint goes next. All runtime settings, the
 * page's own market's (PRODUCT.md §5).
 */
export function SiteFooter() {
  const { t } = useTranslation();
  const settings = useSettings();
  const market = useMarket();
  const officer = settings.grievanceOfficer;
  return (
    <footer className="site-footer">
      <div className="site-footer__inner">
        <div className="site-footer__col">
          <p className="site-footer__name">{settings.companyName}</p>
          <dl className="site-footer__list">
            <dt>{t('footer.address')}</dt>
            <dd>{settings.address}</dd>
            <dt>{t('footer.email')}</dt>
            <dd>
              <a href={`mailto:${settings.email}`}>{settings.email}</a>
            </dd>
            <dt>{t('footer.lender')}</dt>
            <dd>
              {settings.lenderName}
              <span className="site-footer__licence">{settings.licence}</span>
            </dd>
          </dl>
          <p>
            <Link href={withLang('/about', market)}>{t('about.link', { company: settings.companyName })}</Link>
          </p>
        </div>
        <div className="site-footer__col">
          <p className="site-footer__name">{t('footer.grievance')}</p>
          <dl className="site-footer__list">
            <dt>{t('footer.grievanceName')}</dt>
            <dd>{officer.name}</dd>
            <dt>{t('footer.grievanceEmail')}</dt>
            <dd>
              <a href={`mailto:${officer.email}`}>{officer.email}</a>
            </dd>
            <dt>{t('footer.grievancePhone')}</dt>
            <dd>
              <a href={`tel:${officer.phone}`}>{officer.phone}</a>
            </dd>
          </dl>
          <p className="site-footer__note">{t('footer.grievanceNote')}</p>
        </div>
      </div>
      <p className="site-footer__copyright">{settings.copyright}</p>
    </footer>
  );
}
