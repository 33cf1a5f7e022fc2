import { useTranslation } from 'react-i18next';
import { errorText } from '@/shared/api/error-text';
import { useProducts } from '../../api/products';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { ProductCard } from './product-card';

/** Every loan of the borrower's market (the home screen shows them too, under what the borrower may do now). */
export function ProductsPage() {
  const { t } = useTranslation();
  const products = useProducts();
  return (
    <Screen title={t('products.title')} backTo="/home" tabs>
      {products.isPending ? (
        <LoadingState />
      ) : products.isError ? (
        <StateNotice kind="error" title={t('products.loadFailed')} text={errorText(products.error, t)} onRetry={() => void products.refetch()} />
      ) : products.data.length === 0 ? (
        <StateNotice kind="empty" title={t('products.emptyTitle')} text={t('products.empty')} />
      ) : (
        <>
          <p className="products__intro">{t('products.intro')}</p>
          <ul className="products">
            {products.data.map((product) => (
              <li key={product.code}>
                <ProductCard product={product} />
              </li>
            ))}
          </ul>
        </>
      )}
    </Screen>
  );
}
