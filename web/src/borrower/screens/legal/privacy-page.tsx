import { useTranslation } from 'react-i18next';
import { errorText } from '@/shared/api/error-text';
import { useSiteSettings } from '../../api/site-settings';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { useAppName } from '../../ui/use-app-name';

/**
 * What is collected and what never is (PRODUCT.md §2): no contacts, SMS, call log, app list or media,
 * ever; device model, OS and app version only with consent.
 */
export function PrivacyPage() {
  const { t } = useTranslation();
  const app = useAppName();
  const settings = useSiteSettings();
  return (
    <Screen title={t('privacy.title')} backTo="/me">
      {settings.isPending ? (
        <LoadingState />
      ) : settings.isError ? (
        <StateNotice kind="error" title={t('privacy.title')} text={errorText(settings.error, t)} onRetry={() => void settings.refetch()} />
      ) : (
        <article className="legal">
          <p>{t('privacy.intro', { app })}</p>
          <section>
            <h2>{t('privacy.collectTitle')}</h2>
            <ul>
              <li>{t('privacy.collectPhone')}</li>
              <li>{t('privacy.collectApplication')}</li>
              <li>{t('privacy.collectDevice')}</li>
              <li>{t('privacy.collectLocation')}</li>
            </ul>
          </section>
          <section>
            <h2>{t('privacy.neverTitle')}</h2>
            <p>{t('privacy.never')}</p>
          </section>
          <section>
            <h2>{t('privacy.keepTitle')}</h2>
            <p>{t('privacy.keep')}</p>
          </section>
          <section>
            <h2>{t('privacy.contactTitle')}</h2>
            <p>{t('privacy.contact', settings.data.grievanceOfficer)}</p>
          </section>
        </article>
      )}
    </Screen>
  );
}
