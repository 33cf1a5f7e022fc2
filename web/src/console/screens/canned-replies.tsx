import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { useCannedReplies, useDeleteCannedReply, useSaveCannedReply } from '../api/support';
import type { CannedReply } from '../api/types';
import { useOperatorMarkets } from '../operator-context';
import { consolePaths } from '../paths';
import { LoadFailed, Loading } from './states';

/** Each market's borrowers are answered in its language: English India's, Bahasa Indonesia Indonesia's. */
const LANG_OF_MARKET = { IN: 'en', ID: 'id' } as const;

/** Support's canned replies per language (English for India, Bahasa Indonesia for Indonesia): add, edit, delete;
 * every change is audited by the server. Only the languages of the operator's markets are offered (the server keeps
 * each market's replies to its own staff). */
export function CannedRepliesScreen() {
  const { t } = useTranslation();
  const list = useCannedReplies();
  const remove = useDeleteCannedReply();
  const [search] = useSearchParams();
  const langs = useOperatorMarkets().map((m) => LANG_OF_MARKET[m]);
  const asked = search.get('lang');
  const lang = langs.find((l) => l === asked) ?? langs[0] ?? 'en';
  const [editing, setEditing] = useState<CannedReply | 'new' | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const language = t(`canned.lang.${lang}`);
  const mine = (list.data ?? []).filter((r) => r.lang === lang);
  return (
    <section>
      <div className="page-head">
        <h1>{t('canned.title')}</h1>
        <Link to={consolePaths.complaints}>{t('canned.back')}</Link>
      </div>
      <p className="muted">{t('canned.intro')}</p>
      <nav className="tabs" aria-label={t('canned.language')}>
        {langs.map((l) => (
          <Link key={l} to={`${consolePaths.cannedReplies}?lang=${l}`} aria-current={l === lang ? 'page' : undefined} onClick={() => setEditing(null)}>
            {t(`canned.lang.${l}`)}
          </Link>
        ))}
      </nav>
      {notice && (
        <p role="status" className="notice notice--success">
          {notice}
        </p>
      )}
      {editing === null ? (
        <button type="button" className="button" onClick={() => setEditing('new')}>
          {t('canned.new')}
        </button>
      ) : (
        <CannedForm
          key={editing === 'new' ? 'new' : editing.id}
          lang={lang}
          reply={editing === 'new' ? null : editing}
          onDone={(saved) => {
            setEditing(null);
            if (saved) setNotice(t('canned.saved'));
          }}
        />
      )}
      {list.isPending ? (
        <Loading label={t('canned.loading')} />
      ) : list.isError ? (
        <LoadFailed error={list.error} onRetry={() => void list.refetch()} />
      ) : mine.length === 0 ? (
        <p className="empty">{t('canned.empty', { language })}</p>
      ) : (
        <ul className="canned-list" aria-label={t('canned.title')}>
          {mine.map((r) => (
            <li key={r.id}>
              <strong>{r.title}</strong>
              <p>{r.body}</p>
              <div className="actions">
                <button type="button" className="button button--quiet" onClick={() => setEditing(r)}>
                  {t('canned.edit')} <span className="visually-hidden">{r.title}</span>
                </button>
                <button
                  type="button"
                  className="button button--quiet"
                  disabled={remove.isPending}
                  onClick={() => {
                    if (window.confirm(t('canned.confirmDelete', { title: r.title }))) {
                      remove.mutate(r.id, { onSuccess: () => setNotice(t('canned.deleted')) });
                    }
                  }}
                >
                  {t('canned.delete')} <span className="visually-hidden">{r.title}</span>
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {remove.isError && <p className="field-error">{errorText(remove.error, t)}</p>}
    </section>
  );
}

function CannedForm({ lang, reply, onDone }: { lang: string; reply: CannedReply | null; onDone: (saved: boolean) => void }) {
  const { t } = useTranslation();
  const save = useSaveCannedReply();
  const [title, setTitle] = useState(reply?.title ?? '');
  const [body, setBody] = useState(reply?.body ?? '');
  const fields = save.error?.fields ?? {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ id: reply?.id ?? null, reply: { lang, title, body } }, { onSuccess: () => onDone(true) });
  };
  return (
    <form className="canned-form" onSubmit={submit} noValidate>
      <label htmlFor="canned-title">{t('canned.titleField')}</label>
      <input id="canned-title" value={title} maxLength={80} onChange={(e) => setTitle(e.target.value)} aria-invalid={fields.title ? true : undefined} aria-describedby={fields.title ? 'canned-title-error' : undefined} />
      {fields.title && <p id="canned-title-error" className="field-error">{fields.title}</p>}
      <label htmlFor="canned-body">{t('canned.body')}</label>
      <textarea id="canned-body" rows={5} value={body} maxLength={2000} onChange={(e) => setBody(e.target.value)} aria-invalid={fields.body ? true : undefined} aria-describedby={fields.body ? 'canned-body-error' : undefined} />
      {fields.body && <p id="canned-body-error" className="field-error">{fields.body}</p>}
      {save.isError && !fields.title && !fields.body && <p className="field-error">{fields.lang ?? errorText(save.error, t)}</p>}
      <div className="actions">
        <button type="submit" className="button" disabled={save.isPending}>
          {t('canned.save')}
        </button>
        <button type="button" className="button button--quiet" onClick={() => onDone(false)}>
          {t('canned.cancel')}
        </button>
      </div>
    </form>
  );
}
