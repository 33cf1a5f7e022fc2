import { useRef, useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import type { ApiError } from '@/shared/api/http';
import {
  bankFilePath,
  exportPath,
  fetchCsv,
  PAYOUTS_PAGE_SIZE,
  saveCsv,
  useApprovePayout,
  useDisburse,
  useImportBankResult,
  usePayouts,
  usePutBackPayout,
  useRejectPayout,
  useWithdrawOrder,
  type ExportKind,
} from '../api/finance';
import type { ApiMarket, BankResult, Currency, Disbursed, PayoutEntry } from '../api/types';
import { age, dateTime, day, marketName, money, term } from '../format';
import { marketIn, useOperator, useOperatorMarkets } from '../operator-context';
import { consolePaths } from '../paths';
import { useCsrf } from '../csrf-context';
import { CopyButton } from './beneficiary';
import { Pager, pageOf } from './pager';
import { LoadFailed, Loading, ScreenAlert, useFocusOn, type ScreenNotice } from './states';

function payoutsLink(market: ApiMarket, page = 1): string {
  return `${consolePaths.payouts}?market=${market}${page > 1 ? `&page=${page}` : ''}`;
}

/** A payout done or recorded, with the currency of its order: the notice says its amount in that money. */
interface PayoutDone {
  result: Disbursed;
  currency: Currency;
}

/** A recorded payout approved or rejected by someone else first (409): said above the list (`onRefused`), not in its row. */
const NOT_AWAITING = 'payout_not_awaiting';

/** The server's rule (servicing::payout::ManualPayout): 4 to 64 of `A-Za-z0-9-/_.`, trimmed. */
export const BANK_REFERENCE = /^[A-Za-z0-9\-/_.]{4,64}$/;

/**
 * Approved orders awaiting payout in one market, longest waiting first, a page at a time, each with its disburse
 * action. The server gives no total: a full page means there may be a next one.
 */
export function PayoutsScreen() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const markets = useOperatorMarkets();
  const market = marketIn(params, markets);
  const page = pageOf(params);
  const payouts = usePayouts(market, page);
  const rows = payouts.data?.length ?? 0;
  const hasNext = rows === PAYOUTS_PAGE_SIZE;
  const paged = page > 1 || hasNext;
  const first = (page - 1) * PAYOUTS_PAGE_SIZE + 1;
  const [open, setOpen] = useState<string | null>(null);
  const [done, setDone] = useState<PayoutDone | null>(null);
  // Another action done (an order withdrawn, a recorded payout rejected), in words.
  const [said, setSaid] = useState<ScreenNotice | null>(null);
  // An action refused because the order is no longer in that state (409): said here, as its row changes or goes once
  // the list is read again.
  const [refused, setRefused] = useState<ScreenNotice | null>(null);
  // The row's button is gone with what it did: the focus goes to the notice saying what happened.
  const doneRef = useFocusOn<HTMLParagraphElement>(done);
  const saidRef = useFocusOn<HTMLParagraphElement>(said);
  // The notices are of the market they were given in: another market's tab starts without them.
  const [noticesOf, setNoticesOf] = useState(market);
  if (noticesOf !== market) {
    setNoticesOf(market);
    setOpen(null);
    setDone(null);
    setSaid(null);
    setRefused(null);
  }
  const paidOut = (entry: PayoutEntry) => (result: Disbursed) => {
    setRefused(null);
    setSaid(null);
    setDone({ result, currency: entry.currency });
  };
  const say = (text: string) => {
    setDone(null);
    setRefused(null);
    setSaid({ text });
  };
  const refuse = (text: string) => {
    setDone(null);
    setSaid(null);
    setRefused({ text });
  };

  return (
    <section>
      <div className="page-head">
        <h1>{t('payouts.title')}</h1>
      </div>
      <nav aria-label={t('queue.markets')} className="tabs">
        {markets.map((m) => (
          <Link key={m} to={payoutsLink(m)} aria-current={m === market ? 'page' : undefined}>
            {marketName(m, t)}
          </Link>
        ))}
      </nav>
      <div className="payout-tools">
        <BankFilePanel market={market} />
        <ImportPanel market={market} />
      </div>
      {done && (
        <p ref={doneRef} role="status" tabIndex={-1} className="notice notice--success">
          {done.result.awaitingApproval
            ? t('payouts.recorded', { orderNo: done.result.orderNo, amount: money(done.result.amount, done.currency), reference: done.result.bankReference })
            : t('payouts.done', {
                orderNo: done.result.orderNo,
                amount: money(done.result.amount, done.currency),
                reference: done.result.bankReference,
                date: day(done.result.payoutDate ?? ''),
              })}{' '}
          <Link to={consolePaths.order(done.result.orderNo)}>{t('payouts.openOrder')}</Link>
        </p>
      )}
      {said && (
        <p ref={saidRef} role="status" tabIndex={-1} className="notice notice--success">
          {said.text}
        </p>
      )}
      <ScreenAlert notice={refused} />
      {payouts.isPending ? (
        <Loading label={t('payouts.loading')} />
      ) : payouts.isError ? (
        <LoadFailed error={payouts.error} onRetry={() => void payouts.refetch()} />
      ) : payouts.data.length === 0 && page > 1 ? (
        <p className="empty">
          {t('payouts.pastEnd', { page })} <Link to={payoutsLink(market)}>{t('payouts.firstPage')}</Link>
        </p>
      ) : payouts.data.length === 0 ? (
        <p className="empty">{t('payouts.empty', { market: marketName(market, t) })}</p>
      ) : (
        <>
          <table className="table">
            <caption>
              {paged
                ? `${t('payouts.captionPaged', { market: marketName(market, t) })} · ${t('queue.showing', { from: first, to: first + rows - 1 })}`
                : t('payouts.caption', { count: rows, market: marketName(market, t) })}
            </caption>
            <thead>
              <tr>
                <th scope="col">{t('queue.order')}</th>
                <th scope="col">{t('payouts.waiting')}</th>
                <th scope="col">{t('queue.product')}</th>
                <th scope="col" className="num">{t('queue.amount')}</th>
                <th scope="col" className="num">{t('payouts.net')}</th>
                <th scope="col">{t('payouts.beneficiary')}</th>
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
                  <td>
                    <BeneficiaryCell entry={entry} />
                  </td>
                  <td>{dateTime(entry.approvedAt)}</td>
                  <td>
                    {entry.pendingPayout ? (
                      <PendingActions entry={entry} onDone={paidOut(entry)} onRejected={say} onRefused={refuse} />
                    ) : open === entry.orderNo ? (
                      <DisburseForm
                        entry={entry}
                        onCancel={() => setOpen(null)}
                        onDone={(d) => {
                          setOpen(null);
                          paidOut(entry)(d);
                        }}
                        onRefused={refuse}
                      />
                    ) : entry.inBankFile ? null : (
                      <button
                        type="button"
                        className="button button--primary"
                        aria-label={t('payouts.disburseOrder', { orderNo: entry.orderNo })}
                        onClick={() => {
                          setDone(null);
                          setRefused(null);
                          setOpen(entry.orderNo);
                        }}
                      >
                        {t('payouts.disburse')}
                      </button>
                    )}
                    {entry.needsApproval && !entry.pendingPayout && <p className="muted">{t('payouts.needsApproval')}</p>}
                    {entry.inBankFile && <InBankFile entry={entry} />}
                    {/* Only while no transfer may be on its way: none recorded, none in a bank file awaiting its result. */}
                    {!entry.pendingPayout && !entry.inBankFile && open !== entry.orderNo && (
                      <WithdrawAction entry={entry} onDone={(orderNo) => say(t('payouts.withdrawn', { orderNo }))} onRefused={refuse} />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {paged && (
            <Pager page={page} hasNext={hasNext} link={(n) => payoutsLink(market, n)} />
          )}
        </>
      )}
      <MonthEndExport market={market} />
    </section>
  );
}

/** The beneficiary of a row: name, bank, account number and IFSC/bank code in full, each copyable. */
function BeneficiaryCell({ entry }: { entry: PayoutEntry }) {
  const { t } = useTranslation();
  const b = entry.beneficiary;
  if (!b) return <span className="muted">{t('payouts.noBeneficiary')}</span>;
  const routing = b.ifsc ?? b.bankCode;
  const routingLabel = b.ifsc ? t('beneficiary.ifsc') : t('beneficiary.bankCode');
  return (
    <div className="beneficiary-cell">
      <span className="line">
        <strong>{b.name}</strong> <CopyButton value={b.name} label={`${t('beneficiary.name')} ${entry.orderNo}`} />
      </span>
      <span className="muted">{b.bankName}</span>
      <span className="line">
        <span className="mono">{b.accountNumber}</span>{' '}
        <CopyButton value={b.accountNumber} label={`${t('beneficiary.account')} ${entry.orderNo}`} />
      </span>
      <span className="line">
        <span className="muted">{routingLabel}</span> <span className="mono">{routing}</span>{' '}
        <CopyButton value={routing} label={`${routingLabel} ${entry.orderNo}`} />
      </span>
    </div>
  );
}

/**
 * A payout recorded by one operator: who and with which reference; a second operator approves or rejects it. Approved
 * or rejected by someone else first (409 `payout_not_awaiting`), the list is read again and this row changes:
 * `onRefused` has the screen say so.
 */
function PendingActions({
  entry,
  onDone,
  onRejected,
  onRefused,
}: {
  entry: PayoutEntry;
  onDone: (d: Disbursed) => void;
  onRejected: (text: string) => void;
  onRefused: (text: string) => void;
}) {
  const { t } = useTranslation();
  const operator = useOperator();
  const approve = useApprovePayout();
  const reject = useRejectPayout();
  const [mode, setMode] = useState<'idle' | 'approve' | 'reject'>('idle');
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState<string | null>(null);
  const pending = entry.pendingPayout!;
  const own = pending.recordedBy === operator.id;
  const id = `reject-reason-${entry.orderNo}`;
  const error = approve.error ?? reject.error;
  // In the order's own money, whichever market's tab is on show.
  const amount = money(entry.netDisbursed, entry.currency);
  const refused = (e: ApiError) => {
    if (e.code !== NOT_AWAITING) return;
    setMode('idle');
    onRefused(t('payouts.notAwaiting', { orderNo: entry.orderNo, amount }));
  };

  const sendReject = (event: FormEvent) => {
    event.preventDefault();
    if (!reason.trim()) return setReasonError(t('payouts.reasonRequired'));
    setReasonError(null);
    reject.mutate(
      { orderNo: entry.orderNo, reason: reason.trim() },
      {
        onSuccess: () => {
          setMode('idle');
          onRejected(t('payouts.rejectedDone', { orderNo: entry.orderNo, amount }));
        },
        onError: refused,
      },
    );
  };

  return (
    <div className="pending">
      <span className="status status--approved">{t('payouts.awaitingApproval')}</span>
      <span className="muted">
        {t('payouts.recordedBy', { username: pending.recordedByUsername, at: dateTime(pending.recordedAt) })}
      </span>
      <span>
        {t('payouts.referenceShort')} <span className="mono">{pending.bankReference}</span>
      </span>
      {error && error.code !== NOT_AWAITING && (
        <p role="alert" className="notice notice--error">
          {errorText(error, t)}
        </p>
      )}
      {own ? (
        <p className="muted">{t('payouts.ownRecording')}</p>
      ) : mode === 'approve' ? (
        <div role="group" aria-labelledby={`approve-${entry.orderNo}`}>
          <p id={`approve-${entry.orderNo}`}>
            <strong>{t('payouts.approveConfirm', { amount, orderNo: entry.orderNo, reference: pending.bankReference })}</strong>
          </p>
          <div className="actions">
            <button
              type="button"
              className="button button--primary"
              disabled={approve.isPending}
              onClick={() => approve.mutate({ orderNo: entry.orderNo }, { onSuccess: onDone, onError: refused })}
            >
              {t('payouts.approveButton', { amount })}
            </button>
            <button type="button" className="button button--quiet" onClick={() => setMode('idle')}>
              {t('payouts.back')}
            </button>
          </div>
        </div>
      ) : mode === 'reject' ? (
        <form onSubmit={sendReject} noValidate>
          <div className="field">
            <label htmlFor={id}>{t('payouts.rejectReason')}</label>
            <textarea
              id={id}
              rows={2}
              value={reason}
              maxLength={500}
              aria-invalid={reasonError || reject.error?.fields.reason ? true : undefined}
              aria-describedby={`${id}-hint`}
              onChange={(event) => setReason(event.target.value)}
            />
            <p id={`${id}-hint`} className={reasonError || reject.error?.fields.reason ? 'field-error' : 'muted'}>
              {reasonError ?? reject.error?.fields.reason ?? t('payouts.rejectHint')}
            </p>
          </div>
          <div className="actions">
            <button type="submit" className="button button--danger" disabled={reject.isPending}>
              {t('payouts.rejectButton')}
            </button>
            <button type="button" className="button button--quiet" onClick={() => setMode('idle')}>
              {t('payouts.back')}
            </button>
          </div>
        </form>
      ) : (
        <div className="actions">
          <button
            type="button"
            className="button button--primary"
            aria-label={t('payouts.approveOrder', { orderNo: entry.orderNo })}
            onClick={() => {
              approve.reset();
              setMode('approve');
            }}
          >
            {t('payouts.approve')}
          </button>
          <button
            type="button"
            className="button button--quiet"
            aria-label={t('payouts.rejectOrder', { orderNo: entry.orderNo })}
            onClick={() => {
              reject.reset();
              setMode('reject');
            }}
          >
            {t('payouts.reject')}
          </button>
        </div>
      )}
    </div>
  );
}

/** A withdrawal refused (409) since the order is in a bank file or has a payout recorded, or is no longer approved. */
const WITHDRAW_REFUSED: readonly string[] = ['payout_sent', 'invalid_transition'];

/**
 * Withdraws an approved order the bank will not pay (the account closed or frozen, the name not matching): it would
 * otherwise wait in every bank file, its borrower unable to correct the account or apply again. The reason is the
 * borrower's to read. It cannot be undone, so a step restates the order, its amount and the reason before it is sent.
 * Refused because the order left the list's state meanwhile (409), the list is read again and this row may change or
 * go: `onRefused` has the screen say so.
 */
function WithdrawAction({
  entry,
  onDone,
  onRefused,
}: {
  entry: PayoutEntry;
  onDone: (orderNo: string) => void;
  onRefused: (text: string) => void;
}) {
  const { t } = useTranslation();
  const withdraw = useWithdrawOrder();
  const [step, setStep] = useState<'idle' | 'reason' | 'confirm'>('idle');
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState<string | null>(null);
  const id = `withdraw-reason-${entry.orderNo}`;
  const fieldError = reasonError ?? withdraw.error?.fields.reason ?? null;
  const refused = withdraw.error !== null && WITHDRAW_REFUSED.includes(withdraw.error.code);
  const check = (event: FormEvent) => {
    event.preventDefault();
    if (!reason.trim()) return setReasonError(t('payouts.withdrawReasonRequired'));
    setReasonError(null);
    withdraw.reset();
    setStep('confirm');
  };
  const send = () =>
    withdraw.mutate(
      { orderNo: entry.orderNo, reason: reason.trim() },
      {
        onSuccess: () => onDone(entry.orderNo),
        onError: (e) => {
          if (!WITHDRAW_REFUSED.includes(e.code)) return setStep('reason');
          setStep('idle');
          onRefused(t(e.code === 'payout_sent' ? 'payouts.withdrawRefusedSent' : 'payouts.withdrawRefusedGone', { orderNo: entry.orderNo }));
        },
      },
    );
  if (step === 'idle') {
    return (
      <button
        type="button"
        className="button button--quiet"
        aria-label={t('payouts.withdrawOrder', { orderNo: entry.orderNo })}
        onClick={() => {
          withdraw.reset();
          setStep('reason');
        }}
      >
        {t('payouts.withdraw')}
      </button>
    );
  }
  if (step === 'confirm') {
    return (
      <div role="group" aria-labelledby={`${id}-confirm`} className="withdraw">
        <p id={`${id}-confirm`}>
          <strong>{t('payouts.withdrawConfirm', { orderNo: entry.orderNo, amount: money(entry.amount, entry.currency) })}</strong>
        </p>
        <p>
          {t('payouts.withdrawConfirmReason')} “{reason.trim()}”
        </p>
        <div className="actions">
          <button type="button" className="button button--danger" onClick={send} disabled={withdraw.isPending}>
            {t('payouts.withdrawYes', { orderNo: entry.orderNo })}
          </button>
          <button type="button" className="button button--quiet" onClick={() => setStep('reason')} disabled={withdraw.isPending}>
            {t('payouts.back')}
          </button>
        </div>
      </div>
    );
  }
  return (
    <form onSubmit={check} noValidate className="withdraw">
      {withdraw.error && !withdraw.error.fields.reason && !refused && (
        <p role="alert" className="notice notice--error">
          {errorText(withdraw.error, t)}
        </p>
      )}
      <div className="field">
        <label htmlFor={id}>{t('payouts.withdrawReason')}</label>
        <textarea
          id={id}
          rows={3}
          value={reason}
          maxLength={500}
          aria-invalid={fieldError ? true : undefined}
          aria-describedby={`${id}-hint`}
          onChange={(event) => setReason(event.target.value)}
        />
        <p id={`${id}-hint`} className={fieldError ? 'field-error' : 'muted'}>
          {fieldError ?? t('payouts.withdrawHint')}
        </p>
      </div>
      <div className="actions">
        <button type="submit" className="button button--danger">
          {t('payouts.continue')}
        </button>
        <button type="button" className="button button--quiet" onClick={() => setStep('idle')}>
          {t('payouts.back')}
        </button>
      </div>
    </form>
  );
}

/**
 * An order in a downloaded bank file: its money may be on its way, so later files leave it out. Finance puts it back
 * for the next file when the bank did not pay it (never while a payout of it is recorded for approval).
 */
function InBankFile({ entry }: { entry: PayoutEntry }) {
  const { t } = useTranslation();
  const putBack = usePutBackPayout();
  const [asking, setAsking] = useState(false);
  const file = entry.inBankFile!;
  const id = `put-back-${entry.orderNo}`;
  return (
    <div className="in-bank-file">
      <p className="muted">{t('payouts.inBankFile', { username: file.sentByUsername, at: dateTime(file.sentAt) })}</p>
      {putBack.isSuccess ? (
        <p role="status">{t('payouts.putBackDone', { orderNo: entry.orderNo })}</p>
      ) : entry.pendingPayout ? null : asking ? (
        <div role="group" aria-labelledby={id}>
          <p id={id}>
            <strong>{t('payouts.putBackConfirm', { orderNo: entry.orderNo })}</strong>
          </p>
          <div className="actions">
            <button
              type="button"
              className="button button--danger"
              disabled={putBack.isPending}
              onClick={() => putBack.mutate({ orderNo: entry.orderNo }, { onSuccess: () => setAsking(false) })}
            >
              {t('payouts.putBackButton')}
            </button>
            <button type="button" className="button button--quiet" onClick={() => setAsking(false)}>
              {t('payouts.back')}
            </button>
          </div>
        </div>
      ) : (
        <button
          type="button"
          className="button button--quiet"
          aria-label={t('payouts.putBackOrder', { orderNo: entry.orderNo })}
          onClick={() => {
            putBack.reset();
            setAsking(true);
          }}
        >
          {t('payouts.putBack')}
        </button>
      )}
      {putBack.error && (
        <p role="alert" className="notice notice--error">
          {errorText(putBack.error, t)}
        </p>
      )}
    </div>
  );
}

/** Downloads the market's bank bulk payment file (audited by the server). */
function BankFilePanel({ market }: { market: ApiMarket }) {
  const { t } = useTranslation();
  const csrf = useCsrf();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const download = async () => {
    setBusy(true);
    setError(null);
    setSaved(null);
    try {
      const file = await fetchCsv(bankFilePath(market), `kilat-payouts-${market}.csv`, { csrf: csrf.get() });
      saveCsv(file);
      // The orders in it are now marked in the list, and left out of the next file.
      void queryClient.invalidateQueries({ queryKey: ['console', 'payouts'] });
      setSaved(t('payouts.bankFileSaved', { name: file.name, count: Math.max(0, file.text.split('\r\n').filter(Boolean).length - 1) }));
    } catch (e) {
      setError(e as ApiError);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="panel" aria-labelledby="bank-file-title">
      <h2 id="bank-file-title">{t('payouts.bankFileTitle')}</h2>
      <p className="muted">{t('payouts.bankFileHint', { market: marketName(market, t) })}</p>
      <button type="button" className="button button--primary" onClick={() => void download()} disabled={busy}>
        {busy ? t('payouts.downloading') : t('payouts.bankFileButton')}
      </button>
      {saved && <p role="status">{saved}</p>}
      {error && (
        <p role="alert" className="notice notice--error">
          {errorText(error, t)}
        </p>
      )}
    </section>
  );
}

/** Imports the bank's result file: every line answered with what happened. */
function ImportPanel({ market }: { market: ApiMarket }) {
  const { t } = useTranslation();
  const importResult = useImportBankResult();
  const input = useRef<HTMLInputElement>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [report, setReport] = useState<BankResult | null>(null);
  const id = `bank-result-${market}`;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const file = input.current?.files?.[0];
    if (!file) return setFileError(t('payouts.importChoose'));
    setFileError(null);
    setReport(null);
    const content = await file.text();
    importResult.mutate({ market, content }, { onSuccess: setReport });
  };

  const serverError = importResult.error?.fields.content ?? importResult.error?.fields.market;
  const fieldError = fileError ?? serverError ?? null;
  return (
    <section className={report ? 'panel panel--wide' : 'panel'} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('payouts.importTitle')}</h2>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <div className="field">
          <label htmlFor={id}>{t('payouts.importLabel')}</label>
          <input id={id} ref={input} type="file" accept=".csv,text/csv" aria-invalid={fieldError ? true : undefined} aria-describedby={`${id}-hint`} />
          <p id={`${id}-hint`} className={fieldError ? 'field-error' : 'muted'}>
            {fieldError ?? t('payouts.importHint')}
          </p>
        </div>
        <button type="submit" className="button button--primary" disabled={importResult.isPending}>
          {importResult.isPending ? t('payouts.importing') : t('payouts.importButton')}
        </button>
      </form>
      {importResult.isError && !serverError && (
        <p role="alert" className="notice notice--error">
          {errorText(importResult.error, t)}
        </p>
      )}
      {report && <ImportReport report={report} />}
    </section>
  );
}

function ImportReport({ report }: { report: BankResult }) {
  const { t } = useTranslation();
  const currency = currencyOf(report.market);
  const counts = new Map<string, number>();
  for (const line of report.lines) counts.set(line.outcome, (counts.get(line.outcome) ?? 0) + 1);
  return (
    <div role="status">
      <p>
        {[...counts.entries()].map(([outcome, n]) => t('payouts.importCount', { count: n, outcome: t(`payouts.outcome.${outcome}`) })).join(' · ')}
      </p>
      <table className="table table--wrap">
        <caption>{t('payouts.importCaption', { count: report.lines.length })}</caption>
        <thead>
          <tr>
            <th scope="col">{t('payouts.line')}</th>
            <th scope="col">{t('queue.order')}</th>
            <th scope="col">{t('payouts.referenceShort')}</th>
            <th scope="col" className="num">{t('queue.amount')}</th>
            <th scope="col">{t('payouts.result')}</th>
          </tr>
        </thead>
        <tbody>
          {report.lines.map((line) => (
            <tr key={line.line}>
              <td>{line.line}</td>
              <td>{line.reference}</td>
              <td className="mono">{line.bankReference}</td>
              <td className="num">{line.amount === null ? '—' : money(line.amount, currency)}</td>
              <td>
                <span className={`outcome--${line.outcome}`}>{t(`payouts.outcome.${line.outcome}`)}</span>
                {line.expectedAmount !== null && <> {t('payouts.expected', { amount: money(line.expectedAmount, currency) })}</>}
                {line.outcome === 'invalid' && line.detail && <> ({line.detail})</>}
                {(line.outcome === 'already_paid' || line.outcome === 'second_transfer' || line.outcome === 'failed_after_payout' || line.outcome === 'failed_other_file') && line.detail && <> ({line.detail})</>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const EXPORT_KINDS: readonly ExportKind[] = ['payouts', 'repayments', 'refunds', 'ledger', 'not_credited'];

/** The month-end export: one market's payouts, repayments, refunds or ledger over at most 31 of its days, as CSV. */
export function MonthEndExport({ market }: { market: ApiMarket }) {
  const { t } = useTranslation();
  const [kind, setKind] = useState<ExportKind>('payouts');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = `export-${market}`;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setSaved(null);
    try {
      const file = await fetchCsv(exportPath(market, kind, from, to), `kilat-${kind}-${market}.csv`);
      saveCsv(file);
      setSaved(t('payouts.exportSaved', { name: file.name, count: Math.max(0, file.text.split('\r\n').filter(Boolean).length - 1) }));
    } catch (e) {
      setError(e as ApiError);
    } finally {
      setBusy(false);
    }
  };
  const fieldError = (name: string) => error?.fields[name];
  return (
    <section className="panel payouts-export" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('payouts.exportTitle', { market: marketName(market, t) })}</h2>
      <p className="muted">{t('payouts.exportHint')}</p>
      <form className="export-form" onSubmit={(event) => void submit(event)} noValidate>
        <div className="field">
          <label htmlFor={`${id}-kind`}>{t('payouts.exportKind')}</label>
          <select id={`${id}-kind`} value={kind} onChange={(event) => setKind(event.target.value as ExportKind)} aria-invalid={fieldError('kind') ? true : undefined}>
            {EXPORT_KINDS.map((k) => (
              <option key={k} value={k}>
                {t(`payouts.exportKinds.${k}`)}
              </option>
            ))}
          </select>
        </div>
        {(['from', 'to'] as const).map((name) => (
          <div className="field" key={name}>
            <label htmlFor={`${id}-${name}`}>{t(`payouts.export_${name}`)}</label>
            <input
              id={`${id}-${name}`}
              type="date"
              value={name === 'from' ? from : to}
              onChange={(event) => (name === 'from' ? setFrom(event.target.value) : setTo(event.target.value))}
              aria-invalid={fieldError(name) ? true : undefined}
              aria-describedby={fieldError(name) ? `${id}-${name}-error` : undefined}
            />
            {fieldError(name) && (
              <p className="field-error" id={`${id}-${name}-error`}>
                {fieldError(name)}
              </p>
            )}
          </div>
        ))}
        <button type="submit" className="button button--primary" disabled={busy}>
          {busy ? t('payouts.downloading') : t('payouts.exportButton')}
        </button>
      </form>
      {saved && <p role="status">{saved}</p>}
      {error && Object.keys(error.fields).length === 0 && (
        <p role="alert" className="notice notice--error">
          {errorText(error, t)}
        </p>
      )}
    </section>
  );
}

function currencyOf(market: ApiMarket) {
  return market === 'IN' ? 'INR' : 'IDR';
}

/**
 * The bank reference, checked as the server checks it, then a confirm step that states the amount. An order no longer
 * waiting for payout (409 `invalid_transition`) leaves the list read again, and this form with it: `onRefused` has the
 * screen say so.
 */
function DisburseForm({
  entry,
  onCancel,
  onDone,
  onRefused,
}: {
  entry: PayoutEntry;
  onCancel: () => void;
  onDone: (d: Disbursed) => void;
  onRefused: (text: string) => void;
}) {
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
      {
        onSuccess: onDone,
        onError: (e) => {
          setConfirming(false);
          if (e.code === 'invalid_transition') onRefused(t('payouts.invalidTransition', { orderNo: entry.orderNo }));
        },
      },
    );
  };

  const serverError = disburse.error?.fields.bankReference;
  const fieldError = error ?? serverError ?? null;
  return (
    <div className="disburse">
      {disburse.isError && !serverError && disburse.error.code !== 'invalid_transition' && (
        <p role="alert" className="notice notice--error">
          {disburse.error.code === 'payout_sent' ? t('payouts.inBankFileRefused') : errorText(disburse.error, t)}
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
