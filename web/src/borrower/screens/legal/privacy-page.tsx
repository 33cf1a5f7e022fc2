import { useTranslation } from 'react-i18next';
import { errorText } from '@/shared/api/error-text';
import { useMarket } from '@/shared/market/market-context';
import { usePrivacyPolicy } from '../../api/privacy';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { formatDate } from '../products/format';
import '../loans.css';

/**
 * The privacy policy as the server publishes it (`GET /privacy`, public, in the request's language), so the
 * text the app shows and the one the operators keep are the same. It is public: the login screen links here.
 */
export function PrivacyPage() {
  const { t } = useTranslation();
  const market = useMarket();
  const policy = usePrivacyPolicy();
  return (
    <Screen title={policy.data?.title ?? t('privacy.title')} backTo="/me">
      {policy.isPending ? (
        <LoadingState />
      ) : policy.isError ? (
        <StateNotice kind="error" title={t('privacy.loadFailed')} text={errorText(policy.error, t)} onRetry={() => void policy.refetch()} />
      ) : (
        <article className="legal">
          <p className="legal__updated">{t('privacy.updated', { date: formatDate(policy.data.updated, market) })}</p>
          {policy.data.sections.map((section, index) => (
            <section key={`${index}-${section.heading}`}>
              <h2>{section.heading}</h2>
              {section.paragraphs.map((paragraph, at) => (
                <p key={at}>{paragraph}</p>
              ))}
            </section>
          ))}
        </article>
      )}
    </Screen>
  );
}
