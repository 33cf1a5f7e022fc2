import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { ApiError } from '@/shared/api/http';
import { useAudit, type AuditSearch } from '../api/audit';
import type { AuditEntry } from '../api/types';
import { dateTime } from '../format';
import { useOperator } from '../operator-context';
import { LoadFailed, Loading } from './states';

type Filter = 'orderNo' | 'operator' | 'from' | 'to';
const FILTERS: readonly Filter[] = ['orderNo', 'operator', 'from', 'to'];

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
    from: from === null ? undefined : String(from),
    to: next === null ? undefined : String(next.getTime()),
  };
}

/** Who did what, when, to which record, before and after; searched by order, operator and dates. */
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
    const next = new URLSearchParams();
    for (const f of FILTERS) if (draft[f].trim()) next.set(f, draft[f].trim());
    setParams(next);
  };

  const fieldErrors = audit.error instanceof ApiError ? audit.error.fields : {};

  return (
    <section>
      <h1>{t('audit.title')}</h1>
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
              placeholder={f === 'orderNo' ? 'KL-…' : undefined}
              aria-invalid={fieldErrors[f] || (rangeError && f === 'to') ? true : undefined}
              onChange={(event) => setDraft((d) => ({ ...d, [f]: event.target.value }))}
            />
            {fieldErrors[f] && <p className="field-error">{fieldErrors[f]}</p>}
          </div>
        ))}
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
      ) : audit.data.length === 0 ? (
        <p className="empty">{t('audit.empty')}</p>
      ) : (
        <AuditTable entries={audit.data} />
      )}
    </section>
  );
}

function compact(value: AuditEntry['before']): string {
  return value === null ? '—' : JSON.stringify(value);
}

function AuditTable({ entries }: { entries: AuditEntry[] }) {
  const { t } = useTranslation();
  const me = useOperator();
  return (
    <table className="table">
      <caption>{t('audit.caption', { count: entries.length })}</caption>
      <thead>
        <tr>
          <th scope="col">{t('audit.at')}</th>
          <th scope="col">{t('audit.who')}</th>
          <th scope="col">{t('audit.action')}</th>
          <th scope="col">{t('audit.record')}</th>
          <th scope="col">{t('audit.before')}</th>
          <th scope="col">{t('audit.after')}</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => (
          <tr key={entry.id}>
            <td>{dateTime(entry.at)}</td>
            <td>
              {t(`actor.${entry.actorKind}`, { defaultValue: entry.actorKind })}
              {entry.actorKind === 'operator' && entry.actorId === me.id ? (
                <span className="id">{t('audit.you', { username: me.username })}</span>
              ) : (
                entry.actorId && <code className="id">{entry.actorId}</code>
              )}
            </td>
            <td>
              <code>{entry.action}</code>
            </td>
            <td>
              {entry.entity} <code className="id">{entry.entityId}</code>
            </td>
            <td>
              <code className="json">{compact(entry.before)}</code>
            </td>
            <td>
              <code className="json">{compact(entry.after)}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
