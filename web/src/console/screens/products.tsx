import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { ApiError } from '@/shared/api/http';
import { errorText } from '@/shared/api/error-text';
import { useProductAvailability, useProducts, useSaveProduct } from '../api/admin';
import type { ApiMarket, ConsoleProduct } from '../api/types';
import { marketName, money, term } from '../format';
import { consolePaths } from '../paths';
import { LoadFailed, Loading } from './states';

const MARKETS: readonly ApiMarket[] = ['IN', 'ID'];

/** What a new product starts from: the first product of the market, renamed, for the admin to change. */
function template(products: ConsoleProduct[], market: ApiMarket): string {
  const first = products.find((p) => p.market === market);
  const definition = first ? { ...(first.definition as Record<string, unknown>), code: '', name: '' } : { market };
  return JSON.stringify(definition, null, 2);
}

/** Every product of one market with its range, terms, sample price and status; create, edit, disable, enable. */
export function ProductsScreen() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const market: ApiMarket = params.get('market') === 'ID' ? 'ID' : 'IN';
  const products = useProducts();
  const availability = useProductAvailability();
  const [editing, setEditing] = useState<{ code: string | null; text: string } | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  return (
    <section>
      <div className="page-head">
        <h1>{t('products.title')}</h1>
        {products.data && !editing && (
          <button
            type="button"
            className="button button--primary"
            onClick={() => {
              setSaved(null);
              setEditing({ code: null, text: template(products.data, market) });
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
      {saved && (
        <p role="status" className="notice notice--success">
          {saved}
        </p>
      )}
      {editing && (
        <ProductEditor
          code={editing.code}
          initial={editing.text}
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
          onEdit={(p) => {
            setSaved(null);
            setEditing({ code: p.code, text: JSON.stringify(p.definition, null, 2) });
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
  onEdit,
  onToggle,
}: {
  products: ConsoleProduct[];
  market: ApiMarket;
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
          <th scope="col">{t('products.actions')}</th>
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
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The definition as JSON (docs/MONEY.md §7); the server's field errors, caps named, are shown under it. */
function ProductEditor({
  code,
  initial,
  onCancel,
  onSaved,
}: {
  code: string | null;
  initial: string;
  onCancel: () => void;
  onSaved: (p: ConsoleProduct) => void;
}) {
  const { t } = useTranslation();
  const save = useSaveProduct();
  const [text, setText] = useState(initial);
  const [parseError, setParseError] = useState(false);
  const fields = save.error instanceof ApiError ? Object.entries(save.error.fields) : [];

  function submit(event: FormEvent) {
    event.preventDefault();
    let definition: unknown;
    try {
      definition = JSON.parse(text);
    } catch {
      setParseError(true);
      return;
    }
    setParseError(false);
    save.mutate({ code, definition }, { onSuccess: onSaved });
  }

  return (
    <form className="panel" onSubmit={submit} aria-label={code ? t('products.editing', { code }) : t('products.creating')}>
      <h2>{code ? t('products.editing', { code }) : t('products.creating')}</h2>
      <p className="muted">{code ? t('products.versionNote') : t('products.definitionNote')}</p>
      <label htmlFor="product-definition">{t('products.definition')}</label>
      <textarea
        id="product-definition"
        className="code-input"
        rows={18}
        spellCheck={false}
        value={text}
        aria-invalid={parseError || fields.length > 0}
        aria-describedby="product-errors"
        onChange={(e) => setText(e.target.value)}
      />
      <div id="product-errors">
        {parseError && <p className="field-error">{t('products.notJson')}</p>}
        {fields.length > 0
          ? fields.map(([field, message]) => (
              <p key={field} className="field-error" role="alert">
                <strong>{field}</strong>: {message}
              </p>
            ))
          : save.isError && (
              <p className="field-error" role="alert">
                {errorText(save.error, t)}
              </p>
            )}
      </div>
      <div className="actions">
        <button type="submit" className="button button--primary" disabled={save.isPending}>
          {t('products.save')}
        </button>{' '}
        <button type="button" className="button button--quiet" onClick={onCancel}>
          {t('common.cancel')}
        </button>
      </div>
    </form>
  );
}
