import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { useProductAvailability, useProducts } from '../api/admin';
import type { ApiMarket, ConsoleProduct } from '../api/types';
import { marketName, money, term } from '../format';
import { useOperatorMarkets } from '../operator-context';
import { consolePaths } from '../paths';
import { ProductForm } from './product-form';
import { LoadFailed, Loading } from './states';

const MARKETS: readonly ApiMarket[] = ['IN', 'ID'];

/** Every product of one market with its range, terms, sample price and status; create, edit, disable, enable. */
export function ProductsScreen() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const market: ApiMarket = params.get('market') === 'ID' ? 'ID' : 'IN';
  const products = useProducts();
  const availability = useProductAvailability();
  // Each market's products are its lender's: an admin changes only those of the markets they work in.
  const mine = useOperatorMarkets().includes(market);
  // The product in the form: null for a new one.
  const [editing, setEditing] = useState<{ product: ConsoleProduct | null } | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  return (
    <section>
      <div className="page-head">
        <h1>{t('products.title')}</h1>
        {products.data && !editing && mine && (
          <button
            type="button"
            className="button button--primary"
            onClick={() => {
              setSaved(null);
              setEditing({ product: null });
            }}
          >
            {t('products.create')}
          </button>
        )}
      </div>
      <nav aria-label={t('queue.markets')} className="tabs">
        {MARKETS.map((m) => (
          <Link key={m} to={`${consolePaths.products}?market=${m}`} aria-current={m === market ? 'page' : undefined}>
            {marketName(m, t)}
          </Link>
        ))}
      </nav>
      {!mine && <p className="muted">{t('products.notYours', { market: marketName(market, t) })}</p>}
      {saved && (
        <p role="status" className="notice notice--success">
          {saved}
        </p>
      )}
      {editing && (
        <ProductForm
          key={editing.product?.code ?? `new-${market}`}
          product={editing.product}
          market={market}
          onCancel={() => setEditing(null)}
          onSaved={(p) => {
            setEditing(null);
            setSaved(t('products.saved', { name: p.name, version: p.version }));
          }}
        />
      )}
      {availability.isError && <LoadFailed error={availability.error} />}
      {products.isPending ? (
        <Loading label={t('products.loading')} />
      ) : products.isError ? (
        <LoadFailed error={products.error} onRetry={() => void products.refetch()} />
      ) : (
        <ProductTable
          products={products.data.filter((p) => p.market === market)}
          market={market}
          mine={mine}
          onEdit={(p) => {
            setSaved(null);
            setEditing({ product: p });
          }}
          onToggle={(p) => availability.mutate({ code: p.code, enable: !p.enabled })}
        />
      )}
    </section>
  );
}

function ProductTable({
  products,
  market,
  mine,
  onEdit,
  onToggle,
}: {
  products: ConsoleProduct[];
  market: ApiMarket;
  mine: boolean;
  onEdit: (p: ConsoleProduct) => void;
  onToggle: (p: ConsoleProduct) => void;
}) {
  const { t } = useTranslation();
  if (products.length === 0) return <p className="empty">{t('products.empty', { market: marketName(market, t) })}</p>;
  return (
    <table className="table">
      <caption>{t('products.caption', { count: products.length, market: marketName(market, t) })}</caption>
      <thead>
        <tr>
          <th scope="col">{t('products.product')}</th>
          <th scope="col" className="num">{t('products.amounts')}</th>
          <th scope="col">{t('products.terms')}</th>
          <th scope="col">{t('products.price')}</th>
          <th scope="col">{t('products.status')}</th>
          {mine && <th scope="col">{t('products.actions')}</th>}
        </tr>
      </thead>
      <tbody>
        {products.map((p) => (
          <tr key={p.code}>
            <td>
              {p.name}
              <br />
              <span className="muted">
                {p.code} · v{p.version}
              </span>
            </td>
            <td className="num">
              {money(p.amount.min, p.currency)} – {money(p.amount.max, p.currency)}
            </td>
            <td>{p.terms.map((x) => term(x.code, t)).join(', ')}</td>
            <td>
              {p.sample ? (
                <>
                  {t('products.apr', { apr: p.sample.aprDisplay })}
                  {p.sample.dailyCost && (
                    <>
                      <br />
                      <span className="muted">{t('products.daily', { rate: p.sample.dailyCost, cap: p.sample.dailyCap })}</span>
                    </>
                  )}
                </>
              ) : (
                <span className="muted">{t('products.noSample')}</span>
              )}
            </td>
            <td>{p.enabled ? t('products.enabled') : t('products.disabled')}</td>
            {mine && (
              <td>
                <div className="actions">
                  <button type="button" className="button" onClick={() => onEdit(p)} aria-label={t('products.editOne', { name: p.name })}>
                    {t('products.edit')}
                  </button>
                  <button type="button" className="button button--quiet" onClick={() => onToggle(p)}>
                    {p.enabled ? t('products.disable') : t('products.enable')}
                  </button>
                </div>
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
