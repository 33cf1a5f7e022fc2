import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { phoneLink } from '@/shared/phone/phone';
import { useContactMessages, useMarkHandled } from '../api/support';
import type { ContactMessage } from '../api/types';
import { dateTime } from '../format';
import { LoadFailed, Loading } from './states';

/** The marketing site's contact messages, newest first, each with how to reply and whether someone has. */
export function ContactMessagesScreen() {
  const { t } = useTranslation();
  const [status, setStatus] = useState<'waiting' | 'all'>('waiting');
  const list = useContactMessages(status);
  const mark = useMarkHandled();
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
      {list.isPending ? (
        <Loading label={t('contact.loading')} />
      ) : list.isError ? (
        <LoadFailed error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.length === 0 ? (
        <p className="empty">{t('contact.empty')}</p>
      ) : (
        <table className="table">
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
            {list.data.map((m) => (
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
                    <button type="button" className="button button--quiet" disabled={mark.isPending} onClick={() => mark.mutate(m.id)}>
                      {t('contact.markHandled')}
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
