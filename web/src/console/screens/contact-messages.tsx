import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useSearchParams } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { phoneLink } from '@/shared/phone/phone';
import { CONTACT_PAGE_SIZE, useContactMessages, useMarkHandled } from '../api/support';
import type { ContactMessage } from '../api/types';
import { dateTime } from '../format';
import { consolePaths } from '../paths';
import { Pager, pageOf } from './pager';
import { LoadFailed, Loading, useFocusOn, type ScreenNotice } from './states';

/** The marketing site's contact messages, a page at a time with their total: those not handled oldest first (the
 * longest waiting first), all of them newest first; each with how to reply and whether someone has. */
export function ContactMessagesScreen() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  // The filter is in the address with the page, so a reload or a shared link opens the same list.
  const status: 'waiting' | 'all' = params.get('status') === 'all' ? 'all' : 'waiting';
  const page = pageOf(params);
  const list = useContactMessages(status, page);
  const mark = useMarkHandled();
  // Another operator marked the message first: said above the list, as the list read again may no longer hold its row.
  const [notice, setNotice] = useState<ScreenNotice | null>(null);
  const noticeRef = useFocusOn<HTMLParagraphElement>(notice);
  const markHandled = (m: ContactMessage) => {
    setNotice(null);
    mark.mutate(m.id, {
      onSuccess: (result) => {
        if (!result.markedNow) setNotice({ text: t('contact.alreadyHandled', { name: m.name }) });
      },
    });
  };
  // Another filter starts again at its first page.
  const setStatus = (next: 'waiting' | 'all') => setParams(next === 'all' ? { status: 'all' } : {}, { replace: true });
  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / CONTACT_PAGE_SIZE)) : 1;
  const link = (n: number) => {
    const query = new URLSearchParams();
    if (status === 'all') query.set('status', 'all');
    if (n > 1) query.set('page', String(n));
    const text = query.toString();
    return text ? `${consolePaths.contact}?${text}` : consolePaths.contact;
  };
  return (
    <section>
      <div className="page-head">
        <h1>{t('contact.title')}</h1>
        <label>
          {t('complaints.show')}{' '}
          <select value={status} onChange={(e) => setStatus(e.target.value as 'waiting' | 'all')}>
            <option value="waiting">{t('contact.waiting')}</option>
            <option value="all">{t('contact.all')}</option>
          </select>
        </label>
      </div>
      {notice && (
        <p ref={noticeRef} role="status" tabIndex={-1} className="notice notice--info">
          {notice.text}
        </p>
      )}
      {list.isPending ? (
        <Loading label={t('contact.loading')} />
      ) : list.isError ? (
        <LoadFailed error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.items.length === 0 && list.data.total > 0 && page > pages ? (
        // Past the end (messages handled meanwhile, or an old link): the last page, not an empty list.
        <Navigate to={link(pages)} replace />
      ) : list.data.total === 0 ? (
        <p className="empty">{t('contact.empty')}</p>
      ) : (
        <>
        <table className="table">
          <caption className="visually-hidden">{t('contact.caption', { count: list.data.total })}</caption>
          <thead>
            <tr>
              <th scope="col">{t('contact.received')}</th>
              <th scope="col">{t('contact.market')}</th>
              <th scope="col">{t('contact.name')}</th>
              <th scope="col">{t('contact.phone')}</th>
              <th scope="col">{t('contact.message')}</th>
              <th scope="col">{t('contact.replyBy')}</th>
              <th scope="col">{t('contact.handled')}</th>
            </tr>
          </thead>
          <tbody>
            {list.data.items.map((m) => (
              <tr key={m.id}>
                <td>{dateTime(m.createdAt)}</td>
                <td>{m.market ? t(`market.${m.market}`) : <span className="muted">{t('contact.unknownMarket')}</span>}</td>
                <td>
                  {m.name}
                  {m.company ? <div className="muted">{m.company}</div> : null}
                </td>
                <td>
                  <Phone message={m} />
                </td>
                <td className="cell--text">{m.message}</td>
                <td>
                  {t(`contact.channel.${m.replyChannel}`)}:{' '}
                  {m.replyChannel === 'email' ? <a href={`mailto:${encodeURIComponent(m.replyTo ?? '').replace('%40', '@')}`}>{m.replyTo}</a> : <Phone message={m} />}
                </td>
                <td>
                  {m.handled ? (
                    t('contact.handledAt', { at: dateTime(m.handledAt ?? 0) })
                  ) : (
                    <>
                      <button type="button" className="button button--quiet" disabled={mark.isPending} onClick={() => markHandled(m)}>
                        {t('contact.markHandled')}
                      </button>
                      {mark.isError && mark.variables === m.id && (
                        <p className="field-error" role="alert">
                          {t('contact.markFailed', { name: m.name, reason: errorText(mark.error, t) })}
                        </p>
                      )}
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {pages > 1 && <Pager page={page} pages={pages} hasNext={page < pages} link={link} />}
        </>
      )}
    </section>
  );
}

/** The sender's phone as an E.164 `tel:` link, read with the message's market as the default country; as written when
 * it is no possible Indian or Indonesian number. */
function Phone({ message }: { message: ContactMessage }) {
  const market = message.market === 'IN' ? 'in' : message.market === 'ID' ? 'id' : null;
  const link = phoneLink(message.telephone, market);
  if (!link) return <span>{message.telephone}</span>;
  return (
    <a href={`tel:${link.e164}`} title={message.telephone}>
      {link.display}
    </a>
  );
}
