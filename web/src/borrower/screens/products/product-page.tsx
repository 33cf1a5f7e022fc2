import { useTranslation } from 'react-i18next';
import { Link, useParams, useSearchParams } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { ApiError } from '@/shared/api/http';
import { useMarket } from '@/shared/market/market-context';
import { formatMoney } from '@/shared/money/format-money';
import { useProduct } from '../../api/product';
import { useQuote } from '../../api/quote';
import type { KeyFactStatement, Product, QuoteRequest } from '../../api/types';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { useDebouncedValue } from '../../ui/use-debounced-value';
import { amountFromUrl, formatDate, termLabel } from './format';

/** Waits this long after the last change of amount or term before asking for a quote. */
export const QUOTE_DEBOUNCE_MS = 350;

/** One product: the borrower picks an amount and a term and sees what it costs, quoted by the server. */
export function ProductPage() {
  const { t } = useTranslation();
  const { code = '' } = useParams();
  const product = useProduct(code);
  return (
    <Screen title={product.data?.name ?? t('product.title')} backTo="/products">
      {product.isPending ? (
        <LoadingState />
      ) : product.isError ? (
        product.error instanceof ApiError && product.error.status === 404 ? (
          <StateNotice
            kind="empty"
            title={t('product.notFound')}
            actions={
              <Link className="state__link" to="/products">
                {t('product.toProducts')}
              </Link>
            }
          />
        ) : (
          <StateNotice kind="error" title={t('product.loadFailed')} text={errorText(product.error, t)} onRetry={() => void product.refetch()} />
        )
      ) : (
        <LoanChooser product={product.data} />
      )}
    </Screen>
  );
}

function LoanChooser({ product }: { product: Product }) {
  const { t } = useTranslation();
  const market = useMarket();
  // The choice lives in the URL, so a reload or the way back from the KFS keeps it.
  const [params, setParams] = useSearchParams();
  const { min, max, step } = product.amount;
  const amount = amountFromUrl(params.get('amount'), product.amount);
  const term = product.terms.find((candidate) => candidate.code === params.get('term')) ?? product.terms[0];
  const choose = (next: { amount?: number; term?: string }) =>
    setParams({ amount: String(next.amount ?? amount), term: next.term ?? term?.code ?? '' }, { replace: true });

  const request: QuoteRequest | null = term ? { productCode: product.code, amount, termCode: term.code } : null;
  const settled = useDebouncedValue(request, QUOTE_DEBOUNCE_MS);
  const quote = useQuote(settled, { keepPrevious: true });
  const fields = quote.error instanceof ApiError ? quote.error.fields : {};
  const money = (minor: number) => formatMoney(minor, market);

  return (
    <div className="chooser">
      <section className="card">
        <div className="amount">
          <label className="field__label" id="amount-label" htmlFor="amount">
            {t('product.amount')}
          </label>
          <p className="amount__value" aria-live="polite">
            {money(amount)}
          </p>
          <div className="amount__controls">
            <button
              type="button"
              className="amount__step"
              aria-label={t('product.less', { step: money(step) })}
              disabled={amount <= min}
              onClick={() => choose({ amount: Math.max(min, amount - step) })}
            >
              −
            </button>
            <input
              id="amount"
              className="amount__slider"
              type="range"
              min={min}
              max={max}
              step={step}
              value={amount}
              aria-valuetext={money(amount)}
              aria-invalid={fields.amount ? true : undefined}
              aria-describedby={fields.amount ? 'amount-error' : 'amount-range'}
              onChange={(event) => choose({ amount: Number(event.target.value) })}
            />
            <button
              type="button"
              className="amount__step"
              aria-label={t('product.more', { step: money(step) })}
              disabled={amount >= max}
              onClick={() => choose({ amount: Math.min(max, amount + step) })}
            >
              +
            </button>
          </div>
          <p className="amount__range" id="amount-range">
            <span>{money(min)}</span>
            <span>{money(max)}</span>
          </p>
          {fields.amount && (
            <p className="field__error" id="amount-error">
              {fields.amount}
            </p>
          )}
        </div>

        <fieldset className="terms" aria-describedby={fields.termCode ? 'term-error' : undefined}>
          <legend className="field__label">{t('product.term')}</legend>
          <div className="terms__options">
            {product.terms.map((option) => (
              <label key={option.code} className={option.code === term?.code ? 'term term--chosen' : 'term'}>
                <input type="radio" name="term" value={option.code} checked={option.code === term?.code} onChange={() => choose({ term: option.code })} />
                {termLabel(option, t)}
              </label>
            ))}
          </div>
          {fields.termCode && (
            <p className="field__error" id="term-error">
              {fields.termCode}
            </p>
          )}
        </fieldset>
      </section>

      <section className="card quote" aria-labelledby="quote-heading" aria-busy={quote.isFetching}>
        <h2 className="quote__heading" id="quote-heading">
          {t('product.quoteHeading')}
        </h2>
        {quote.isError ? (
          <div role="alert" className="quote__error">
            <p>{errorText(quote.error, t)}</p>
            {fields.productCode && <p>{fields.productCode}</p>}
            {!(quote.error instanceof ApiError && quote.error.status === 422) && (
              <button type="button" className="link-button" onClick={() => void quote.refetch()}>
                {t('state.retry')}
              </button>
            )}
          </div>
        ) : quote.data ? (
          <QuoteSummary quote={quote.data} stale={quote.isPlaceholderData || JSON.stringify(settled) !== JSON.stringify(request)} />
        ) : (
          <LoadingState />
        )}
      </section>
    </div>
  );
}

function QuoteSummary({ quote, stale }: { quote: KeyFactStatement; stale: boolean }) {
  const { t } = useTranslation();
  const market = useMarket();
  const money = (minor: number) => formatMoney(minor, market);
  const [first] = quote.installments;
  const last = quote.installments[quote.installments.length - 1];
  const kfsUrl = `/products/${encodeURIComponent(quote.productCode)}/kfs?${new URLSearchParams({ amount: String(quote.sanctionedAmount), term: quote.termCode }).toString()}`;
  let installments = '';
  if (first && last) {
    if (quote.installments.length === 1) installments = t('product.single', { amount: money(first.amount), date: formatDate(first.dueDate, market) });
    else if (first.amount === last.amount) installments = t('product.equal', { count: quote.installments.length, amount: money(first.amount) });
    else installments = t('product.unequal', { count: quote.installments.length, amount: money(first.amount), last: money(last.amount) });
  }
  return (
    <div className={stale ? 'quote__body quote__body--stale' : 'quote__body'}>
      <p className="quote__installments">{installments}</p>
      <dl className="figures">
        <div className="figures__row figures__row--apr">
          <dt>{t('kfs.apr')}</dt>
          <dd>{quote.aprDisplay}</dd>
        </div>
        <div className="figures__row">
          <dt>{t('kfs.netDisbursed')}</dt>
          <dd>{money(quote.netDisbursed)}</dd>
        </div>
        <div className="figures__row">
          <dt>{t('kfs.totalFees')}</dt>
          <dd>{money(quote.totalFees)}</dd>
        </div>
        <div className="figures__row">
          <dt>{t('kfs.totalInterest')}</dt>
          <dd>{money(quote.totalInterest)}</dd>
        </div>
        <div className="figures__row figures__row--total">
          <dt>{t('kfs.totalRepayable')}</dt>
          <dd>{money(quote.totalRepayable)}</dd>
        </div>
      </dl>
      <Link className="quote__kfs" to={kfsUrl}>
        {t('product.seeKfs')}
      </Link>
    </div>
  );
}
