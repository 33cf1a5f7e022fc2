import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { useMarket } from '@/shared/market/market-context';
import { formatMoney } from '@/shared/money/format-money';
import { formatApr } from '@/shared/money/format-percent';
import type { Product } from '../../api/types';
import { termLabel } from './format';

/** A product at a glance: its range, terms and the cost of an example loan, the whole card a link to it. */
export function ProductCard({ product, heading: Heading = 'h2' }: { product: Product; heading?: 'h2' | 'h3' }) {
  const { t } = useTranslation();
  const market = useMarket();
  const money = (minor: number) => formatMoney(minor, market);
  const sampleTerm = product.terms.find((term) => term.code === product.sample.termCode);
  const headingId = `product-${product.code}`;
  return (
    <article className="product-card" aria-labelledby={headingId}>
      <Heading className="product-card__name" id={headingId}>
        <Link className="product-card__link" to={`/products/${encodeURIComponent(product.code)}`}>
          {product.name}
        </Link>
      </Heading>
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
        <strong className="product-card__apr">{t('products.apr', { apr: formatApr(product.sample.apr, market) })}</strong>
      </p>
      <span className="product-card__go" aria-hidden="true">
        ›
      </span>
    </article>
  );
}
