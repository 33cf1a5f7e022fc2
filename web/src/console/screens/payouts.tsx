import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { useDisburse, usePayouts } from '../api/finance';
import type { ApiMarket, Disbursed, PayoutEntry } from '../api/types';
import { age, dateTime, day, marketName, money, term } from '../format';
import { consolePaths } from '../paths';
import { LoadFailed, Loading } from './states';

const MARKETS: readonly ApiMarket[] = ['IN', 'ID'];

/** The server's rule (servicing::payout::ManualPayout): 4 to 64 of `A-Za-z0-9-/_.`, trimmed. */
export const BANK_REFERENCE = /^[A-Za-z0-9\-/_.]{4,64}$/;

function marketOf(params: URLSearchParams): ApiMarket {
  return params.get('market') === 'ID' ? 'ID' : 'IN';
}

/** Approved orders awaiting payout in one market, longest waiting first, each with its disburse action. */
export function PayoutsScreen() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const market = marketOf(params);
  const payouts = usePayouts(market);
  const [open, setOpen] = useState<string | null>(null);
  const [done, setDone] = useState<Disbursed | null>(null);

  return (
    <section>
      <div className="page-head">
        <h1>{t('payouts.title')}</h1>
      </div>
      <nav aria-label={t('queue.markets')} className="tabs">
        {MARKETS.map((m) => (
          <Link key={m} to={`${consolePaths.payouts}?market=${m}`} aria-current={m === market ? 'page' : undefined}>
            {marketName(m, t)}
          </Link>
        ))}
      </nav>
      {done && (
        <p role="status" className="notice notice--success">
          {t('payouts.done', { orderNo: done.orderNo, amount: money(done.amount, currencyOf(market)), reference: done.bankReference, date: day(done.payoutDate) })}{' '}
          <Link to={consolePaths.order(done.orderNo)}>{t('payouts.openOrder')}</Link>
        </p>
      )}
      {payouts.isPending ? (
        <Loading label={t('payouts.loading')} />
      ) : payouts.isError ? (
        <LoadFailed error={payouts.error} onRetry={() => void payouts.refetch()} />
      ) : payouts.data.length === 0 ? (
        <p className="empty">{t('payouts.empty', { market: marketName(market, t) })}</p>
      ) : (
        <table className="table">
          <caption>{t('payouts.caption', { count: payouts.data.length, market: marketName(market, t) })}</caption>
          <thead>
            <tr>
              <th scope="col">{t('queue.order')}</th>
              <th scope="col">{t('payouts.waiting')}</th>
              <th scope="col">{t('queue.product')}</th>
              <th scope="col" className="num">{t('queue.amount')}</th>
              <th scope="col" className="num">{t('payouts.net')}</th>
              <th scope="col">{t('queue.borrower')}</th>
              <th scope="col">{t('payouts.approvedAt')}</th>
              <th scope="col">{t('payouts.action')}</th>
            </tr>
          </thead>
          <tbody>
            {payouts.data.map((entry) => (
              <tr key={entry.orderNo}>
                <td>
                  <Link to={consolePaths.order(entry.orderNo)}>{entry.orderNo}</Link>
                </td>
                <td>{age(entry.ageSeconds, t)}</td>
                <td>
                  {entry.productName}
                  <br />
                  <span className="muted">{term(entry.termCode, t)}</span>
                </td>
                <td className="num">{money(entry.amount, entry.currency)}</td>
                <td className="num">{money(entry.netDisbursed, entry.currency)}</td>
                <td>{entry.phoneMasked}</td>
                <td>{dateTime(entry.approvedAt)}</td>
                <td>
                  {open === entry.orderNo ? (
                    <DisburseForm
                      entry={entry}
                      onCancel={() => setOpen(null)}
                      onDone={(d) => {
                        setOpen(null);
                        setDone(d);
                      }}
                    />
                  ) : (
                    <button
                      type="button"
                      className="button button--primary"
                      aria-label={t('payouts.disburseOrder', { orderNo: entry.orderNo })}
                      onClick={() => {
                        setDone(null);
                        setOpen(entry.orderNo);
                      }}
                    >
                      {t('payouts.disburse')}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function currencyOf(market: ApiMarket) {
  return market === 'IN' ? 'INR' : 'IDR';
}

/** The bank reference, checked as the server checks it, then a confirm step that states the amount. */
function DisburseForm({ entry, onCancel, onDone }: { entry: PayoutEntry; onCancel: () => void; onDone: (d: Disbursed) => void }) {
  const { t } = useTranslation();
  const disburse = useDisburse();
  const [reference, setReference] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const id = `bank-reference-${entry.orderNo}`;

  const check = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = reference.trim();
    if (!trimmed) return setError(t('payouts.referenceRequired'));
    if (!BANK_REFERENCE.test(trimmed)) return setError(t('payouts.referenceInvalid'));
    setError(null);
    disburse.reset();
    setConfirming(true);
  };

  const send = () => {
    disburse.mutate(
      { orderNo: entry.orderNo, bankReference: reference.trim() },
      { onSuccess: onDone, onError: () => setConfirming(false) },
    );
  };

  const serverError = disburse.error?.fields.bankReference;
  const fieldError = error ?? serverError ?? null;
  return (
    <div className="disburse">
      {disburse.isError && !serverError && (
        <p role="alert" className="notice notice--error">
          {disburse.error.code === 'invalid_transition' ? t('payouts.invalidTransition') : errorText(disburse.error, t)}
        </p>
      )}
      {confirming ? (
        <div role="group" aria-labelledby={`${id}-confirm`}>
          <p id={`${id}-confirm`}>
            <strong>{t('payouts.confirm', { amount: money(entry.netDisbursed, entry.currency), orderNo: entry.orderNo, reference: reference.trim() })}</strong>
          </p>
          <div className="actions">
            <button type="button" className="button button--primary" onClick={send} disabled={disburse.isPending}>
              {disburse.isPending ? t('payouts.sending') : t('payouts.confirmButton', { amount: money(entry.netDisbursed, entry.currency) })}
            </button>
            <button type="button" className="button button--quiet" onClick={() => setConfirming(false)} disabled={disburse.isPending}>
              {t('payouts.back')}
            </button>
          </div>
        </div>
      ) : (
        <form onSubmit={check} noValidate>
          <div className="field">
            <label htmlFor={id}>{t('payouts.reference')}</label>
            <input
              id={id}
              value={reference}
              autoComplete="off"
              spellCheck={false}
              aria-invalid={fieldError ? true : undefined}
              aria-describedby={`${id}-hint`}
              onChange={(event) => setReference(event.target.value)}
            />
            <p className={fieldError ? 'field-error' : 'muted'} id={`${id}-hint`}>
              {fieldError ?? t('payouts.referenceHint')}
            </p>
          </div>
          <div className="actions">
            <button type="submit" className="button button--primary">{t('payouts.continue')}</button>
            <button type="button" className="button button--quiet" onClick={onCancel}>{t('payouts.cancel')}</button>
          </div>
        </form>
      )}
    </div>
  );
}
