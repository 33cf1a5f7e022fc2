import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { complaintImageUrl, useCloseComplaint, useComplaintQueue, useReply, useSupportComplaint } from '../api/support';
import { age, dateTime, day } from '../format';
import { consolePaths } from '../paths';
import { LoadFailed, Loading } from './states';

/** Support's queue: complaints oldest first, with age, status and the regulator's deadline. */
export function ComplaintsScreen() {
  const { t } = useTranslation();
  const [status, setStatus] = useState<'open' | 'all'>('open');
  const queue = useComplaintQueue(status);
  return (
    <section>
      <div className="page-head">
        <h1>{t('complaints.title')}</h1>
        <label>
          {t('complaints.show')}{' '}
          <select value={status} onChange={(e) => setStatus(e.target.value as 'open' | 'all')}>
            <option value="open">{t('complaints.showOpen')}</option>
            <option value="all">{t('complaints.showAll')}</option>
          </select>
        </label>
      </div>
      {queue.isPending ? (
        <Loading label={t('complaints.loading')} />
      ) : queue.isError ? (
        <LoadFailed error={queue.error} onRetry={() => void queue.refetch()} />
      ) : queue.data.length === 0 ? (
        <p className="empty">{t('complaints.empty')}</p>
      ) : (
        <table className="table">
          <caption className="visually-hidden">{t('complaints.caption', { count: queue.data.length })}</caption>
          <thead>
            <tr>
              <th scope="col">{t('complaints.ticket')}</th>
              <th scope="col">{t('complaints.market')}</th>
              <th scope="col">{t('complaints.category')}</th>
              <th scope="col">{t('complaints.status')}</th>
              <th scope="col">{t('complaints.age')}</th>
              <th scope="col">{t('complaints.resolveBy')}</th>
            </tr>
          </thead>
          <tbody>
            {queue.data.map((c) => (
              <tr key={c.ticketNo} className={c.overdue ? 'row--flagged' : undefined}>
                <td>
                  <Link to={consolePaths.complaint(c.ticketNo)}>{c.ticketNo}</Link>
                </td>
                <td>{c.market}</td>
                <td>{c.categoryLabel}</td>
                <td>{t(`complaints.statuses.${c.status}`)}</td>
                <td>{age(c.ageSeconds, t)}</td>
                <td>
                  {day(c.resolveBy)} {c.overdue && <strong className="flag">{t('complaints.overdue')}</strong>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** One complaint: the conversation, the photos, a reply and closing. */
export function ComplaintScreen() {
  const { t } = useTranslation();
  const { ticketNo = '' } = useParams();
  const complaint = useSupportComplaint(ticketNo);
  const reply = useReply(ticketNo);
  const close = useCloseComplaint(ticketNo);
  const [body, setBody] = useState('');
  const [notice, setNotice] = useState<string | null>(null);

  if (complaint.isPending) return <Loading label={t('complaints.loading')} />;
  if (complaint.isError) return <LoadFailed error={complaint.error} onRetry={() => void complaint.refetch()} />;
  const c = complaint.data;
  const send = (event: FormEvent) => {
    event.preventDefault();
    reply.mutate(body, {
      onSuccess: () => {
        setBody('');
        setNotice(t('complaints.replied'));
      },
    });
  };
  return (
    <section>
      <div className="page-head">
        <h1>
          {t('complaints.ticket')} {c.ticketNo}
        </h1>
        <Link to={consolePaths.complaints}>{t('complaints.back')}</Link>
      </div>
      {notice && (
        <p role="status" className="notice notice--success">
          {notice}
        </p>
      )}
      <dl className="facts">
        <dt>{t('complaints.status')}</dt>
        <dd>
          {t(`complaints.statuses.${c.status}`)} {c.overdue && <strong className="flag">{t('complaints.overdue')}</strong>}
        </dd>
        <dt>{t('complaints.category')}</dt>
        <dd>{c.categoryLabel}</dd>
        <dt>{t('complaints.borrower')}</dt>
        <dd>{c.phoneMasked ?? '—'}</dd>
        <dt>{t('complaints.order')}</dt>
        <dd>{c.orderNo ? <Link to={consolePaths.order(c.orderNo)}>{c.orderNo}</Link> : '—'}</dd>
        <dt>{t('complaints.resolveBy')}</dt>
        <dd>{day(c.resolveBy)}</dd>
        <dt>{t('complaints.score')}</dt>
        <dd>{c.score != null ? `${c.score} / 5${c.scoreComment ? ` — ${c.scoreComment}` : ''}` : '—'}</dd>
      </dl>
      <h2>{t('complaints.conversation')}</h2>
      <ol className="conversation">
        {c.messages.map((m, i) => (
          <li key={i} className={`conversation__item conversation__item--${m.author}`}>
            <strong>{t(`complaints.author.${m.author}`)}</strong> <span className="muted">{dateTime(m.createdAt)}</span>
            <p>{m.body}</p>
          </li>
        ))}
      </ol>
      {c.images.length > 0 && (
        <div className="complaint-images">
          {c.images.map((img, i) => (
            <a key={img.imageId} href={complaintImageUrl(img.imageId)} target="_blank" rel="noopener noreferrer">
              <img src={complaintImageUrl(img.imageId)} alt={t('complaints.photo', { n: i + 1 })} width={160} height={120} />
            </a>
          ))}
        </div>
      )}
      {c.status !== 'closed' && (
        <form className="reply-form" onSubmit={send}>
          <label htmlFor="reply">{t('complaints.reply')}</label>
          <textarea id="reply" rows={4} maxLength={2000} value={body} onChange={(e) => setBody(e.target.value)} />
          {reply.isError && <p className="field-error">{errorText(reply.error, t)}</p>}
          <div className="actions">
            <button type="submit" className="button" disabled={reply.isPending || body.trim() === ''}>
              {t('complaints.send')}
            </button>
            <button
              type="button"
              className="button button--quiet"
              disabled={close.isPending}
              onClick={() => close.mutate(undefined, { onSuccess: () => setNotice(t('complaints.closed')) })}
            >
              {t('complaints.close')}
            </button>
          </div>
          {close.isError && <p className="field-error">{errorText(close.error, t)}</p>}
        </form>
      )}
    </section>
  );
}
