import { useTranslation } from 'react-i18next';
import { errorText } from '@/shared/api/error-text';
import { useSiteSettings } from '../../api/site-settings';
import { Screen } from '../../layout/screen';
import { breakable, LONG_VALUE } from '../../ui/long-value';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { useAppName } from '../../ui/use-app-name';
import '../loans.css';

const tel = (phone: string) => `tel:${phone.replace(/[^\d+]/g, '')}`;

/**
 * About us (PRODUCT.md §2: routed and linked, unlike the original's): who runs the app, who lends under
 * which licence, and whom to complain to (RBI: a named grievance officer with contact details in the app;
 * OJK: the licence shown, a Pejabat Pengaduan, then OJK's line 157). All from the runtime settings of the
 * visit's market, so a change of address or officer needs no release.
 */
export function AboutPage() {
  const { t } = useTranslation();
  const app = useAppName();
  const settings = useSiteSettings();
  const whatsappDigits = settings.data?.whatsappNumber.replace(/\D/g, '') ?? '';
  return (
    <Screen title={t('about.title')} backTo="/me">
      {settings.isPending ? (
        <LoadingState />
      ) : settings.isError ? (
        <StateNotice kind="error" title={t('about.loadFailed')} text={errorText(settings.error, t)} onRetry={() => void settings.refetch()} />
      ) : (
        <article className="legal about">
          <p>{t('about.intro', { app, company: settings.data.companyName, lender: settings.data.lenderName })}</p>
          <ul className="about__promises">
            <li>{t('about.quick')}</li>
            <li>{t('about.flexible')}</li>
            <li>{t('about.privacy')}</li>
            <li>{t('about.service')}</li>
          </ul>

          <section aria-labelledby="about-company">
            <h2 id="about-company">{t('about.company')}</h2>
            <address className="about__address">
              <strong>{settings.data.companyName}</strong>
              <br />
              {settings.data.address}
              <br />
              <a className={LONG_VALUE} href={`mailto:${settings.data.email}`}>
                {breakable(settings.data.email)}
              </a>
            </address>
          </section>

          <section aria-labelledby="about-lender">
            <h2 id="about-lender">{t('about.lender')}</h2>
            <p>{t('about.lenderText', { lender: settings.data.lenderName })}</p>
            <p className="about__licence">{settings.data.licence}</p>
          </section>

          <section aria-labelledby="about-grievance">
            <h2 id="about-grievance">{t('about.grievance')}</h2>
            <p>{t('about.grievanceText')}</p>
            <address className="about__address">
              {settings.data.grievanceOfficer.name}
              <br />
              <a className={LONG_VALUE} href={`mailto:${settings.data.grievanceOfficer.email}`}>
                {breakable(settings.data.grievanceOfficer.email)}
              </a>
              <br />
              <a href={tel(settings.data.grievanceOfficer.phone)}>{settings.data.grievanceOfficer.phone}</a>
            </address>
            <p className="about__note">{t('about.grievanceNote')}</p>
          </section>

          <section aria-labelledby="about-service">
            <h2 id="about-service">{t('about.customerService')}</h2>
            <p>
              {t('about.phone')} <a href={tel(settings.data.servicePhone)}>{settings.data.servicePhone}</a>
              <br />
              {t('about.whatsapp')}{' '}
              {whatsappDigits ? (
                <a href={`https://wa.me/${whatsappDigits}`} rel="noopener noreferrer" target="_blank">
                  {settings.data.whatsappNumber}
                </a>
              ) : (
                settings.data.whatsappNumber
              )}
            </p>
          </section>

          <p className="about__copyright">{settings.data.copyright}</p>
        </article>
      )}
    </Screen>
  );
}
