import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { useMarket } from '@/shared/market/market-context';
import { formatMoney } from '@/shared/money/format-money';
import { useProducts } from '../../api/products';
import type { Product } from '../../api/types';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { termLabel } from './format';

/** The loans of the borrower's market: where a signed-in borrower lands. */
export function ProductsPage() {
  const { t } = useTranslation();
  const products = useProducts();
  return (
    <Screen title={t('products.title')} tabs>
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

function ProductCard({ product }: { product: Product }) {
  const { t } = useTranslation();
  const market = useMarket();
  const money = (minor: number) => formatMoney(minor, market);
  const sampleTerm = product.terms.find((term) => term.code === product.sample.termCode);
  const headingId = `product-${product.code}`;
  return (
    <article className="product-card" aria-labelledby={headingId}>
      <h2 className="product-card__name" id={headingId}>
        <Link className="product-card__link" to={`/products/${encodeURIComponent(product.code)}`}>
          {product.name}
        </Link>
      </h2>
      <p className="product-card__range">{t('products.range', { min: money(product.amount.min), max: money(product.amount.max) })}</p>
      <p className="product-card__terms">
        {t('products.terms')}: {product.terms.map((term) => termLabel(term, t)).join(' · ')}
      </p>
      <p className="product-card__sample">
        {t('products.sample', {
          amount: money(product.sample.amount),
          term: sampleTerm ? termLabel(sampleTerm, t) : product.sample.termCode,
          total: money(product.sample.totalRepayable),
        })}{' '}
        <strong className="product-card__apr">{t('products.apr', { apr: product.sample.aprDisplay })}</strong>
      </p>
      <span className="product-card__go" aria-hidden="true">
        ›
      </span>
    </article>
  );
}
