import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams, useSearchParams } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { ApiError } from '@/shared/api/http';
import type { Market } from '@/shared/market/market';
import { useMarket } from '@/shared/market/market-context';
import { formatMoney } from '@/shared/money/format-money';
import { formatApr } from '@/shared/money/format-percent';
import { useProduct } from '../../api/product';
import { useQuote } from '../../api/quote';
import type { KeyFactStatement, Product, QuoteRequest } from '../../api/types';
import { Screen } from '../../layout/screen';
import { MoneyKeyboard } from '../../ui/money-keyboard';
import { minorFromMajor } from '@/shared/money/major-units';
import { decimalSeparator, formatTypedMoney } from '../../ui/money-text';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { useDebouncedValue } from '../../ui/use-debounced-value';
import { amountFromUrl, amountProblem, kfsAmounts, moneyAtPrecision, scheduleSummary, termLabel } from './format';
import '../loans.css';

/** Waits this long after the last change of amount or term before asking for a quote. */
export const QUOTE_DEBOUNCE_MS = 350;

/**
 * One product: the borrower picks an amount (stepper, slider, or typed on the money keyboard) and a term, sees
 * what it costs, quoted by the server, and applies: the Key Fact Statement comes next, and confirms.
 */
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
  // The quote on the screen is of the amount and term chosen now: not while a change waits for its own.
  const current = JSON.stringify(settled) === JSON.stringify(request);
  // The server's reasons (a 422's fields, in the borrower's language) for the choice on the screen, beside its control.
  const fields = current && quote.error instanceof ApiError ? quote.error.fields : {};
  // Apply goes on only with a choice the server has quoted: never one it refused, nor one still being quoted or unquoted.
  const quoted = current && quote.isSuccess && !quote.isPlaceholderData;
  const refusedChoice = current && quote.error instanceof ApiError && quote.error.status === 422;
  const money = (minor: number) => formatMoney(minor, market);
  const kfsUrl = term
    ? `/products/${encodeURIComponent(product.code)}/kfs?${new URLSearchParams({ amount: String(amount), term: term.code }).toString()}`
    : null;

  // The money keyboard: `typed` is null while it is closed.
  const [typed, setTyped] = useState<string | null>(null);
  const [typedError, setTypedError] = useState<string | null>(null);
  const amountButton = useRef<HTMLButtonElement>(null);
  const refocus = useRef(false);
  useEffect(() => {
    // Back to the amount once the keyboard has gone, so a keyboard or screen-reader user is not lost.
    if (typed === null && refocus.current) {
      refocus.current = false;
      amountButton.current?.focus();
    }
  }, [typed]);
  const openKeyboard = () => {
    setTyped('');
    setTypedError(null);
  };
  const closeKeyboard = () => {
    setTyped(null);
    setTypedError(null);
    refocus.current = true;
  };
  const confirmTyped = () => {
    const minor = minorFromMajor(typed ?? '');
    // Nothing typed: the amount stays as it was.
    const problem = minor === null ? null : amountProblem(minor, product.amount);
    if (problem?.kind === 'range') setTypedError(t('product.typedRange', { min: money(min), max: money(max) }));
    else if (problem?.kind === 'step') setTypedError(t('product.typedStep', { step: money(step), lower: money(problem.lower), upper: money(problem.upper) }));
    else {
      if (minor !== null) choose({ amount: minor });
      closeKeyboard();
    }
  };
  const keyboardOpen = typed !== null;

  return (
    <div className={keyboardOpen ? 'chooser chooser--keyboard' : 'chooser'}>
      <section className="card">
        <div className="amount">
          <label className="field__label" id="amount-label" htmlFor="amount">
            {t('product.amount')}
          </label>
          {keyboardOpen ? (
            <div className="amount__typed">
              <p className={typed ? 'amount__value' : 'amount__value amount__value--placeholder'} aria-live="polite" id="amount-typed">
                <span className="visually-hidden">{t('product.typing')} </span>
                <span>{typed ? formatTypedMoney(typed, market) : money(amount)}</span>
                <span className="amount__caret" aria-hidden="true" />
              </p>
              <p className="amount__hint">{typedError ? null : t('product.typedHint', { min: money(min), max: money(max), step: money(step) })}</p>
              {typedError && (
                <p className="field__error" role="alert">
                  {typedError}
                </p>
              )}
            </div>
          ) : (
            <button
              ref={amountButton}
              type="button"
              className="amount__value amount__value--button"
              aria-label={t('product.typeAmount', { amount: money(amount) })}
              onClick={openKeyboard}
            >
              <span aria-live="polite">{money(amount)}</span>
              <span className="amount__edit" aria-hidden="true">
                ✎
              </span>
            </button>
          )}
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
          <QuoteSummary quote={quote.data} stale={quote.isPlaceholderData || !current} />
        ) : (
          <QuotePlaceholder />
        )}
      </section>

      {kfsUrl && (
        <div className="apply">
          {quoted ? (
            <Link className="apply__button" to={kfsUrl}>
              {t('product.apply')}
            </Link>
          ) : (
            // Where it will be once the choice is quoted, so nothing moves; a link to nowhere until then.
            <a className="apply__button apply__button--disabled" role="link" aria-disabled="true" aria-describedby="apply-note">
              {t('product.apply')}
            </a>
          )}
          <p className="apply__note" id="apply-note">
            {quoted ? t('product.applyNote') : refusedChoice ? t('product.applyRefused') : t('product.applyWaiting')}
          </p>
        </div>
      )}

      {typed !== null && (
        <MoneyKeyboard
          value={typed}
          onChange={(next) => {
            setTyped(next);
            setTypedError(null);
          }}
          onConfirm={confirmTyped}
          onHide={closeKeyboard}
          decimalLabel={decimalSeparator(market)}
        />
      )}
    </div>
  );
}

/**
 * The quote's figures, in the order the summary shows them; `sample` is a figure of a usual width, which the
 * placeholder lays out unseen so that each row takes the room it will take.
 */
const FIGURES: readonly {
  label: string;
  row: string;
  shown: (quote: KeyFactStatement, money: (minor: number) => string, market: Market) => string;
  sample: (market: Market) => string;
}[] = [
  { label: 'kfs.apr', row: 'figures__row figures__row--apr', shown: (quote, _money, market) => formatApr(quote.apr, market), sample: (market) => formatApr(9999, market) },
  { label: 'kfs.netDisbursed', row: 'figures__row', shown: (quote, money) => money(quote.netDisbursed), sample: (market) => formatMoney(1_000_000, market) },
  { label: 'kfs.totalFees', row: 'figures__row', shown: (quote, money) => money(quote.totalFees), sample: (market) => formatMoney(10_000, market) },
  { label: 'kfs.totalInterest', row: 'figures__row', shown: (quote, money) => money(quote.totalInterest), sample: (market) => formatMoney(10_000, market) },
  { label: 'kfs.totalRepayable', row: 'figures__row figures__row--total', shown: (quote, money) => money(quote.totalRepayable), sample: (market) => formatMoney(1_000_000, market) },
];

/**
 * While the first quote is on its way: the summary's frame, its labels and room for its figures, so that Apply below
 * does not move when they arrive (a tap meant for it would land on the figures instead).
 */
function QuotePlaceholder() {
  const { t } = useTranslation();
  const market = useMarket();
  return (
    <div className="quote__body quote__body--loading" role="status">
      <span className="visually-hidden">{t('layout.loading')}</span>
      <p className="quote__installments quote__installments--placeholder" aria-hidden="true" />
      <dl className="figures" aria-hidden="true">
        {FIGURES.map(({ label, row, sample }) => (
          <div key={label} className={row}>
            <dt>{t(label)}</dt>
            <dd>
              <span className="figure-placeholder">{sample(market)}</span>
            </dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

function QuoteSummary({ quote, stale }: { quote: KeyFactStatement; stale: boolean }) {
  const { t } = useTranslation();
  const market = useMarket();
  // One precision for all of the quote's figures, the one its statement and then the loan keep.
  const money = moneyAtPrecision(kfsAmounts(quote), market);
  const installments = scheduleSummary(quote.installments, money, t, market);
  return (
    <div className={stale ? 'quote__body quote__body--stale' : 'quote__body'}>
      <p className="quote__installments">{installments}</p>
      <dl className="figures">
        {FIGURES.map(({ label, row, shown }) => (
          <div key={label} className={row}>
            <dt>{t(label)}</dt>
            <dd>{shown(quote, money, market)}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}
