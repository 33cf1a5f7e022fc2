import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { ApiError } from '@/shared/api/http';
import { auditExportPath, useAudit, type AuditSearch } from '../api/audit';
import { fetchCsv, saveCsv } from '../api/finance';
import type { AuditEntry, Currency } from '../api/types';
import { dateTime, money } from '../format';
import { useOperator } from '../operator-context';
import { consolePaths } from '../paths';
import { LoadFailed, Loading } from './states';

type Filter = 'orderNo' | 'operator' | 'action' | 'from' | 'to';
const FILTERS: readonly Filter[] = ['orderNo', 'operator', 'action', 'from', 'to'];

/** The actions and families the action filter suggests (any other action can be typed). */
const SUGGESTED_ACTIONS = [
  'order.',
  'payment.',
  'payout.',
  'operator.',
  'product.',
  'complaint.',
  'order.approve',
  'order.reject',
  'payment.confirm',
  'view_unmasked',
  'audit.export',
] as const;

/** Fields whose numbers are amounts in minor units of the entry's currency. */
const MONEY_FIELD = /(^|\.)(amount|principal|interest|fees?|total|due|paid|outstanding|received|refund|charge|lateCharge|penalty|balance|netDisbursed)[A-Za-z]*$/i;

/** `YYYY-MM-DD` → epoch ms of that day's start in the operator's time zone; null when not a date. */
export function dayStartMs(isoDate: string): number | null {
  const [y, m, d] = isoDate.split('-').map(Number);
  if (!y || !m || !d) return null;
  return new Date(y, m - 1, d).getTime();
}

/**
 * The URL's filters as the API takes them. The dates are whole days in the operator's time zone, both included:
 * `from` is the first day's start, `to` the start of the day after the last.
 */
function toApiSearch(params: URLSearchParams): AuditSearch {
  const from = dayStartMs(params.get('from') ?? '');
  const to = dayStartMs(params.get('to') ?? '');
  const next = to === null ? null : new Date(to);
  next?.setDate(next.getDate() + 1);
  return {
    orderNo: params.get('orderNo')?.trim() || undefined,
    operator: params.get('operator')?.trim() || undefined,
    action: params.get('action')?.trim() || undefined,
    from: from === null ? undefined : String(from),
    to: next === null ? undefined : String(next.getTime()),
  };
}

/** Who did what, when, to which record, and what changed field by field; searched by order, operator, action and dates. */
export function AuditScreen() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const [draft, setDraft] = useState<Record<Filter, string>>(() => {
    const out = {} as Record<Filter, string>;
    for (const f of FILTERS) out[f] = params.get(f) ?? '';
    return out;
  });
  const [rangeError, setRangeError] = useState<string | null>(null);
  const audit = useAudit(toApiSearch(params));

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (draft.from && draft.to && draft.from > draft.to) {
      setRangeError(t('audit.rangeInvalid'));
      return;
    }
    setRangeError(null);
    setExportError(null);
    setExported(null);
    const next = new URLSearchParams();
    for (const f of FILTERS) if (draft[f].trim()) next.set(f, draft[f].trim());
    setParams(next);
  };

  const search = toApiSearch(params);
  const [exporting, setExporting] = useState(false);
  const [exportError, setExportError] = useState<ApiError | null>(null);
  const [exported, setExported] = useState<string | null>(null);
  const fieldErrors = { ...(audit.error instanceof ApiError ? audit.error.fields : {}), ...(exportError?.fields ?? {}) };
  const entries = audit.data?.pages.flatMap((page) => page.entries) ?? [];

  const onExport = async () => {
    setExporting(true);
    setExportError(null);
    setExported(null);
    try {
      const file = await fetchCsv(auditExportPath(search), 'kilat-audit.csv');
      saveCsv(file);
      setExported(t('audit.exported', { name: file.name }));
    } catch (error) {
      setExportError(error instanceof ApiError ? error : new ApiError({ code: 'network_error', status: 0 }));
    } finally {
      setExporting(false);
    }
  };

  return (
    <section>
      <div className="page-head">
        <h1>{t('audit.title')}</h1>
        <button type="button" className="button button--quiet" onClick={() => void onExport()} disabled={exporting}>
          {exporting ? t('audit.exporting') : t('audit.export')}
        </button>
      </div>
      {exported && <p role="status">{exported}</p>}
      {exportError && Object.keys(exportError.fields).length === 0 && (
        <p role="alert" className="field-error">
          {exportError.msg || t('audit.exportFailed')}
        </p>
      )}
      <form className="panel filters" role="search" onSubmit={onSubmit} aria-label={t('audit.search')}>
        {FILTERS.map((f) => (
          <div className="field" key={f}>
            <label htmlFor={`audit-${f}`}>{t(`audit.${f}`)}</label>
            <input
              id={`audit-${f}`}
              type={f === 'from' || f === 'to' ? 'date' : 'text'}
              value={draft[f]}
              spellCheck={false}
              autoComplete="off"
              placeholder={f === 'orderNo' ? 'KL-…' : f === 'action' ? 'order.approve, payment.' : undefined}
              list={f === 'action' ? 'audit-actions' : undefined}
              aria-invalid={fieldErrors[f] || (rangeError && f === 'to') ? true : undefined}
              onChange={(event) => setDraft((d) => ({ ...d, [f]: event.target.value }))}
            />
            {fieldErrors[f] && <p className="field-error">{fieldErrors[f]}</p>}
          </div>
        ))}
        <datalist id="audit-actions">
          {SUGGESTED_ACTIONS.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
        <div className="actions">
          <button type="submit" className="button button--primary">
            {t('audit.submit')}
          </button>
        </div>
        {rangeError && (
          <p role="alert" className="field-error filters-error">
            {rangeError}
          </p>
        )}
      </form>
      {audit.isPending ? (
        <Loading label={t('audit.loading')} />
      ) : audit.isError ? (
        <LoadFailed error={audit.error} onRetry={() => void audit.refetch()} />
      ) : entries.length === 0 ? (
        <p className="empty">{t('audit.empty')}</p>
      ) : (
        <>
          <AuditTable entries={entries} more={audit.hasNextPage} />
          {audit.hasNextPage && (
            <div className="actions">
              <button
                type="button"
                className="button"
                onClick={() => void audit.fetchNextPage()}
                disabled={audit.isFetchingNextPage}
              >
                {audit.isFetchingNextPage ? t('audit.loadingOlder') : t('audit.older')}
              </button>
            </div>
          )}
          {audit.isFetchNextPageError && (
            <p role="alert" className="field-error">
              {t('audit.olderFailed')}
            </p>
          )}
        </>
      )}
    </section>
  );
}

/** A value as people read it: money in the entry's currency for an amount field, text as it is, else JSON. */
function shown(field: string, value: unknown, currency: Currency | null): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'number' && currency && MONEY_FIELD.test(field) && Number.isInteger(value)) return money(value, currency);
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

function Changes({ entry }: { entry: AuditEntry }) {
  const { t } = useTranslation();
  if (entry.changes.length === 0) return <span className="muted">{t('audit.noChanges')}</span>;
  const currency = entry.currency === 'INR' || entry.currency === 'IDR' ? entry.currency : null;
  return (
    <table className="diff">
      <thead className="visually-hidden">
        <tr>
          <th scope="col">{t('audit.field')}</th>
          <th scope="col">{t('audit.before')}</th>
          <th scope="col">{t('audit.after')}</th>
        </tr>
      </thead>
      <tbody>
        {entry.changes.map((c) => (
          <tr key={c.field}>
            <th scope="row">{c.field}</th>
            <td className="diff__before">{shown(c.field, c.before, currency)}</td>
            <td aria-hidden="true">→</td>
            <td className="diff__after">{shown(c.field, c.after, currency)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function AuditTable({ entries, more }: { entries: AuditEntry[]; more: boolean }) {
  const { t } = useTranslation();
  const me = useOperator();
  return (
    <table className="table">
      <caption>{t(more ? 'audit.captionMore' : 'audit.caption', { count: entries.length })}</caption>
      <thead>
        <tr>
          <th scope="col">{t('audit.at')}</th>
          <th scope="col">{t('audit.who')}</th>
          <th scope="col">{t('audit.action')}</th>
          <th scope="col">{t('audit.record')}</th>
          <th scope="col">{t('audit.changes')}</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => (
          <tr key={entry.id}>
            <td>{dateTime(entry.at)}</td>
            <td>
              {entry.actorKind === 'operator' && entry.actorId === me.id
                ? t('audit.you', { username: me.username })
                : entry.actorName ?? t(`actor.${entry.actorKind}`, { defaultValue: entry.actorKind })}
            </td>
            <td>
              {t(`auditAction.${entry.action.replaceAll('.', '_')}`, { defaultValue: entry.action })}
              <br />
              <code className="id">{entry.action}</code>
            </td>
            <td>
              {entry.orderNo ? (
                <Link to={consolePaths.order(entry.orderNo)}>{entry.orderNo}</Link>
              ) : (
                <>
                  {t(`auditEntity.${entry.entity}`, { defaultValue: entry.entity })} <code className="id">{entry.entityId}</code>
                </>
              )}
            </td>
            <td>
              <Changes entry={entry} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
