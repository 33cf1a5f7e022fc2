import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { ApiError } from '@/shared/api/http';
import { errorText } from '@/shared/api/error-text';
import { useDeleteFaq, useFaq, useMoveFaq, useSaveFaq } from '../api/content';
import type { ApiMarket, FaqDirection, FaqEntry, FaqWrite } from '../api/types';
import { dateTime, marketName } from '../format';
import { consolePaths } from '../paths';
import { LoadFailed, Loading } from './states';

const MARKETS: readonly ApiMarket[] = ['IN', 'ID'];
/** The FAQ is written per language: India's borrowers read English, Indonesia's Indonesian. */
const LANG: Record<ApiMarket, 'en' | 'id'> = { IN: 'en', ID: 'id' };
/** The server's categories (support::FAQ_CATEGORIES). */
export const FAQ_CATEGORIES = ['apply', 'repay', 'account'] as const;
const MAX_POSITION = 10_000;

type Editing = { id: string | null; entry: FaqWrite };

/** The FAQ of one market's language, by category and position: create, edit, move up or down, delete. */
export function FaqScreen() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const market: ApiMarket = params.get('market') === 'ID' ? 'ID' : 'IN';
  const category = FAQ_CATEGORIES.find((c) => c === params.get('category')) ?? null;
  const faq = useFaq();
  const moving = useMoveFaq();
  const [editing, setEditing] = useState<Editing | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const lang = LANG[market];
  const entries = (faq.data ?? []).filter((e) => e.lang === lang && (category === null || e.category === category));

  /** A new entry goes last in its language and category. */
  function nextPosition(entryLang: string, entryCategory: string): number {
    const positions = (faq.data ?? []).filter((e) => e.lang === entryLang && e.category === entryCategory).map((e) => e.position);
    return Math.min(Math.max(0, ...positions) + 1, MAX_POSITION);
  }

  function startNew() {
    setNotice(null);
    const first = category ?? 'apply';
    setEditing({ id: null, entry: { lang, category: first, question: '', answer: '', position: nextPosition(lang, first) } });
  }

  /** One place up or down in its category, in one request the server makes atomic. */
  function move(entry: FaqEntry, direction: FaqDirection) {
    setNotice(null);
    moving.mutate({ id: entry.id, direction }, { onSuccess: () => setNotice(t('faq.moved', { question: entry.question })) });
  }

  return (
    <section>
      <div className="page-head">
        <h1>{t('faq.title')}</h1>
        {faq.data && !editing && (
          <button type="button" className="button button--primary" onClick={startNew}>
            {t('faq.create')}
          </button>
        )}
      </div>
      <nav aria-label={t('queue.markets')} className="tabs">
        {MARKETS.map((m) => (
          <Link key={m} to={`${consolePaths.faq}?market=${m}${category ? `&category=${category}` : ''}`} aria-current={m === market ? 'page' : undefined}>
            {t('faq.marketTab', { market: marketName(m, t), language: t(`faq.lang.${LANG[m]}`) })}
          </Link>
        ))}
      </nav>
      <div className="filters">
        <label>
          {t('faq.category')}{' '}
          <select
            value={category ?? ''}
            onChange={(e) => {
              const next = new URLSearchParams(params);
              if (e.target.value) next.set('category', e.target.value);
              else next.delete('category');
              setParams(next);
            }}
          >
            <option value="">{t('faq.allCategories')}</option>
            {FAQ_CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {t(`faq.categories.${c}`)}
              </option>
            ))}
          </select>
        </label>
      </div>
      {notice && (
        <p role="status" className="notice notice--success">
          {notice}
        </p>
      )}
      {editing && (
        <FaqEditor
          key={editing.id ?? 'new'}
          editing={editing}
          nextPosition={nextPosition}
          onCancel={() => setEditing(null)}
          onSaved={(e) => {
            setEditing(null);
            setNotice(t('faq.saved', { question: e.question }));
          }}
        />
      )}
      {moving.isError && !editing && (
        // A refused move names its reason on `direction` (the entry is at an end already).
        <div role="alert" className="notice notice--error">
          <p>{(moving.error instanceof ApiError && moving.error.fields.direction) || errorText(moving.error, t)}</p>
        </div>
      )}
      {faq.isPending ? (
        <Loading label={t('faq.loading')} />
      ) : faq.isError ? (
        <LoadFailed error={faq.error} onRetry={() => void faq.refetch()} />
      ) : entries.length === 0 ? (
        <p className="empty">{t('faq.empty', { language: t(`faq.lang.${lang}`) })}</p>
      ) : (
        <table className="table table--stacked">
          <caption>{t('faq.caption', { count: entries.length, language: t(`faq.lang.${lang}`) })}</caption>
          <thead>
            <tr>
              <th scope="col">{t('faq.category')}</th>
              <th scope="col" className="num">{t('faq.position')}</th>
              <th scope="col">{t('faq.question')}</th>
              <th scope="col">{t('faq.updated')}</th>
              <th scope="col">{t('faq.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e, i) => {
              const sameCategory = (j: number) => entries[j]?.category === e.category;
              return (
                <FaqRow
                  key={e.id}
                  entry={e}
                  first={!sameCategory(i - 1)}
                  last={!sameCategory(i + 1)}
                  busy={moving.isPending}
                  onEdit={() => {
                    setNotice(null);
                    setEditing({ id: e.id, entry: { lang: e.lang, category: e.category, question: e.question, answer: e.answer, position: e.position } });
                  }}
                  onMove={(direction) => move(e, direction)}
                  onDeleted={() => setNotice(t('faq.deleted', { question: e.question }))}
                />
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}

function FaqRow({
  entry,
  first,
  last,
  busy,
  onEdit,
  onMove,
  onDeleted,
}: {
  entry: FaqEntry;
  first: boolean;
  last: boolean;
  busy: boolean;
  onEdit: () => void;
  onMove: (direction: FaqDirection) => void;
  onDeleted: () => void;
}) {
  const { t } = useTranslation();
  const remove = useDeleteFaq();
  const [confirming, setConfirming] = useState(false);
  return (
    <tr>
      <td data-label={t('faq.category')}>{t(`faq.categories.${entry.category}`, { defaultValue: entry.category })}</td>
      <td className="num" data-label={t('faq.position')}>
        {entry.position}
      </td>
      <td className="cell--text" data-label={t('faq.question')}>
        <strong>{entry.question}</strong>
        <br />
        <span className="muted">{entry.answer}</span>
      </td>
      <td data-label={t('faq.updated')}>{dateTime(entry.updatedAt)}</td>
      <td data-label={t('faq.actions')}>
        {confirming ? (
          <div role="group" aria-label={t('faq.confirmDelete', { question: entry.question })} className="inline-form">
            <span>{t('faq.confirmDelete', { question: entry.question })}</span>
            <button
              type="button"
              className="button button--danger"
              disabled={remove.isPending}
              onClick={() => remove.mutate(entry.id, { onSuccess: onDeleted })}
            >
              {t('faq.deleteYes')}
            </button>
            <button type="button" className="button button--quiet" onClick={() => setConfirming(false)}>
              {t('common.cancel')}
            </button>
            {remove.isError && (
              <p className="field-error" role="alert">
                {errorText(remove.error, t)}
              </p>
            )}
          </div>
        ) : (
          <div className="actions">
            <button type="button" className="button" onClick={onEdit} aria-label={t('faq.editOne', { question: entry.question })}>
              {t('faq.edit')}
            </button>
            <button type="button" className="button button--quiet" disabled={first || busy} onClick={() => onMove('up')} aria-label={t('faq.upOne', { question: entry.question })}>
              ↑
            </button>
            <button type="button" className="button button--quiet" disabled={last || busy} onClick={() => onMove('down')} aria-label={t('faq.downOne', { question: entry.question })}>
              ↓
            </button>
            <button type="button" className="button button--quiet" onClick={() => setConfirming(true)} aria-label={t('faq.deleteOne', { question: entry.question })}>
              {t('faq.delete')}
            </button>
          </div>
        )}
      </td>
    </tr>
  );
}

/** One entry's fields; the server's field errors are shown under each field. */
function FaqEditor({
  editing,
  nextPosition,
  onCancel,
  onSaved,
}: {
  editing: Editing;
  nextPosition: (lang: string, category: string) => number;
  onCancel: () => void;
  onSaved: (e: FaqEntry) => void;
}) {
  const { t } = useTranslation();
  const save = useSaveFaq();
  const [entry, setEntry] = useState<FaqWrite>(editing.entry);
  /** A new entry follows its language and category to the end of their list. */
  const place = (next: FaqWrite) =>
    setEntry(editing.id === null ? { ...next, position: nextPosition(next.lang, next.category) } : next);
  const fields: Record<string, string> = save.error instanceof ApiError ? save.error.fields : {};
  const known = ['lang', 'category', 'question', 'answer', 'position'];
  const title = editing.id ? t('faq.editing') : t('faq.creating');
  const heading = useRef<HTMLHeadingElement>(null);
  // The form opens above the list: an Edit pressed far down (on a phone, several screens down) brings it into view.
  useEffect(() => heading.current?.focus(), []);

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate({ id: editing.id, entry }, { onSuccess: onSaved });
  }

  const error = (field: string) =>
    fields[field] && (
      <p id={`faq-${field}-error`} className="field-error">
        {fields[field]}
      </p>
    );
  const described = (field: string) => (fields[field] ? { 'aria-invalid': true, 'aria-describedby': `faq-${field}-error` } : {});

  return (
    <form className="panel" onSubmit={submit} aria-label={title}>
      <h2 ref={heading} tabIndex={-1}>
        {title}
      </h2>
      <div className="form-row">
        <label>
          {t('faq.language')}{' '}
          <select value={entry.lang} onChange={(e) => place({ ...entry, lang: e.target.value })} {...described('lang')}>
            <option value="en">{t('faq.lang.en')}</option>
            <option value="id">{t('faq.lang.id')}</option>
          </select>
        </label>
        <label>
          {t('faq.category')}{' '}
          <select value={entry.category} onChange={(e) => place({ ...entry, category: e.target.value })} {...described('category')}>
            {FAQ_CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {t(`faq.categories.${c}`)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('faq.position')}{' '}
          <input
            type="number"
            min={0}
            max={MAX_POSITION}
            value={entry.position ?? ''}
            onChange={(e) => setEntry({ ...entry, position: e.target.value === '' ? undefined : Number(e.target.value) })}
            {...described('position')}
          />
        </label>
      </div>
      {error('lang')}
      {error('category')}
      {error('position')}
      <div className="field">
        <label htmlFor="faq-question">{t('faq.question')}</label>
        <input id="faq-question" value={entry.question} onChange={(e) => setEntry({ ...entry, question: e.target.value })} {...described('question')} />
        {error('question')}
      </div>
      <div className="field">
        <label htmlFor="faq-answer">{t('faq.answer')}</label>
        <textarea id="faq-answer" rows={6} value={entry.answer} onChange={(e) => setEntry({ ...entry, answer: e.target.value })} {...described('answer')} />
        {error('answer')}
      </div>
      {save.isError && !Object.keys(fields).some((f) => known.includes(f)) && (
        <p className="field-error" role="alert">
          {errorText(save.error, t)}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="button button--primary" disabled={save.isPending}>
          {t('faq.save')}
        </button>{' '}
        <button type="button" className="button button--quiet" onClick={onCancel}>
          {t('common.cancel')}
        </button>
      </div>
    </form>
  );
}
