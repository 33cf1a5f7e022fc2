import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { useRecommended } from '../../api/recommended';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { ProductCard } from '../products/product-card';
import { IneligibleReasons } from './reasons';
import '../loans.css';

/** The loans the borrower may apply for now, the lowest APR first; or why they may not, and what to do. */
export function RecommendPage() {
  const { t } = useTranslation();
  const recommended = useRecommended();
  return (
    <Screen title={t('recommend.title')} backTo="/home">
      {recommended.isPending ? (
        <LoadingState />
      ) : recommended.isError ? (
        <StateNotice kind="error" title={t('recommend.loadFailed')} text={errorText(recommended.error, t)} onRetry={() => void recommended.refetch()} />
      ) : !recommended.data.eligible ? (
        <section className="state state--empty" aria-labelledby="recommend-refused">
          <h2 className="state__title" id="recommend-refused">
            {t('home.cannotApply')}
          </h2>
          <IneligibleReasons reasons={recommended.data.reasons} />
        </section>
      ) : recommended.data.products.length === 0 ? (
        <StateNotice
          kind="empty"
          title={t('products.emptyTitle')}
          text={t('products.empty')}
          actions={
            <Link className="state__link" to="/home">
              {t('recommend.toHome')}
            </Link>
          }
        />
      ) : (
        <>
          <p className="products__intro">{t('recommend.intro')}</p>
          <ol className="products">
            {recommended.data.products.map((product) => (
              <li key={product.code}>
                <ProductCard product={product} />
              </li>
            ))}
          </ol>
        </>
      )}
    </Screen>
  );
}
