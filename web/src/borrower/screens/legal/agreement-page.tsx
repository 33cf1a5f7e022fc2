import { useTranslation } from 'react-i18next';
import { errorText } from '@/shared/api/error-text';
import { useMarket } from '@/shared/market/market-context';
import { useSiteSettings } from '../../api/site-settings';
import { Screen } from '../../layout/screen';
import { LONG_VALUE, LongText } from '../../ui/long-value';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { useAppName } from '../../ui/use-app-name';

/**
 * The terms every loan follows (PRODUCT.md §3). A loan's own figures come with its Key Fact Statement,
 * which the borrower accepts before confirming; this page promises nothing the product does not do.
 */
export function AgreementPage() {
  const { t } = useTranslation();
  const market = useMarket();
  const app = useAppName();
  const settings = useSiteSettings();
  const sections = ['kfs', ...(market.id === 'id' ? ['caps'] : []), 'cooling', 'late', 'extension', 'repay'];
  return (
    <Screen title={t('agreement.title')} backTo="/me">
      {settings.isPending ? (
        <LoadingState />
      ) : settings.isError ? (
        <StateNotice kind="error" title={t('agreement.title')} text={errorText(settings.error, t)} onRetry={() => void settings.refetch()} />
      ) : (
        <article className="legal">
          <p>{t('agreement.intro', { app, lender: settings.data.lenderName })}</p>
          {sections.map((section) => (
            <section key={section}>
              <h2>{t(`agreement.${section}Title`)}</h2>
              <p>{t(`agreement.${section}`)}</p>
            </section>
          ))}
          <section>
            <h2>{t('agreement.grievanceTitle')}</h2>
            <p className={LONG_VALUE}>
              <LongText text={t('agreement.grievance', settings.data.grievanceOfficer)} />
            </p>
          </section>
        </article>
      )}
    </Screen>
  );
}
