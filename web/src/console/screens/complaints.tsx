import { useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, Navigate, useParams, useSearchParams } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import {
  COMPLAINTS_PAGE_SIZE,
  complaintImageUrl,
  useAssign,
  useAssignees,
  useCannedReplies,
  useCloseComplaint,
  useComplaintQueue,
  useReply,
  useSupportComplaint,
  type QueueAssignee,
  type QueueStatus,
} from '../api/support';
import type { SupportComplaint } from '../api/types';
import { age, dateTime, day } from '../format';
import { useOperator } from '../operator-context';
import { consolePaths } from '../paths';
import { Pager, pageOf } from './pager';
import { LoadFailed, Loading } from './states';

/** Support's queue, a page at a time with its total: open complaints oldest first (all of them newest first), with
 * age, status, assignee and the regulator's deadline; filtered by status and by assignee (mine, unassigned). */
export function ComplaintsScreen() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const [status, setStatusNow] = useState<QueueStatus>('open');
  const [assignee, setAssigneeNow] = useState<QueueAssignee>('all');
  const page = pageOf(params);
  const queue = useComplaintQueue(status, assignee, page);
  // Another filter starts again at its first page.
  const setStatus = (next: QueueStatus) => {
    setStatusNow(next);
    setParams({}, { replace: true });
  };
  const setAssignee = (next: QueueAssignee) => {
    setAssigneeNow(next);
    setParams({}, { replace: true });
  };
  const pages = queue.data ? Math.max(1, Math.ceil(queue.data.total / COMPLAINTS_PAGE_SIZE)) : 1;
  const link = (n: number) => (n > 1 ? `${consolePaths.complaints}?page=${n}` : consolePaths.complaints);
  return (
    <section>
      <div className="page-head">
        <h1>{t('complaints.title')}</h1>
        <div className="complaint-filters">
          <label>
            {t('complaints.show')}{' '}
            <select value={status} onChange={(e) => setStatus(e.target.value as QueueStatus)}>
              <option value="open">{t('complaints.showOpen')}</option>
              <option value="all">{t('complaints.showAll')}</option>
            </select>
          </label>
          <label>
            {t('complaints.assignee')}{' '}
            <select value={assignee} onChange={(e) => setAssignee(e.target.value as QueueAssignee)}>
              <option value="all">{t('complaints.assigneeAll')}</option>
              <option value="mine">{t('complaints.assigneeMine')}</option>
              <option value="unassigned">{t('complaints.assigneeNone')}</option>
            </select>
          </label>
          <Link to={consolePaths.cannedReplies}>{t('canned.title')}</Link>
        </div>
      </div>
      {queue.isPending ? (
        <Loading label={t('complaints.loading')} />
      ) : queue.isError ? (
        <LoadFailed error={queue.error} onRetry={() => void queue.refetch()} />
      ) : queue.data.items.length === 0 && queue.data.total > 0 && page > pages ? (
        // Past the end (complaints closed meanwhile, or an old link): the last page, not an empty queue.
        <Navigate to={link(pages)} replace />
      ) : queue.data.total === 0 ? (
        <p className="empty">{t('complaints.empty')}</p>
      ) : (
        <>
          <table className="table">
            <caption className="visually-hidden">{t('complaints.caption', { count: queue.data.total })}</caption>
            <thead>
              <tr>
                <th scope="col">{t('complaints.ticket')}</th>
                <th scope="col">{t('complaints.market')}</th>
                <th scope="col">{t('complaints.category')}</th>
                <th scope="col">{t('complaints.status')}</th>
                <th scope="col">{t('complaints.assignee')}</th>
                <th scope="col">{t('complaints.age')}</th>
                <th scope="col">{t('complaints.resolveBy')}</th>
              </tr>
            </thead>
            <tbody>
              {queue.data.items.map((c) => (
                <tr key={c.ticketNo} className={c.overdue ? 'row--flagged' : undefined}>
                  <td>
                    <Link to={consolePaths.complaint(c.ticketNo)}>{c.ticketNo}</Link>
                  </td>
                  <td>{c.market}</td>
                  <td>{c.categoryLabel}</td>
                  <td>{t(`complaints.statuses.${c.status}`)}</td>
                  <td>{c.assigneeName ?? <span className="muted">{t('complaints.unassigned')}</span>}</td>
                  <td>{age(c.ageSeconds, t)}</td>
                  <td>
                    {day(c.resolveBy)} {c.overdue && <strong className="flag">{t('complaints.overdue')}</strong>}
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

/** One complaint: the facts (status, assignee, category, borrower, loan, deadline, rating), the conversation with each
 * photo where it was sent, a reply (a canned reply in the ticket's language fills the box, editable), and closing. */
export function ComplaintScreen() {
  const { t } = useTranslation();
  const { ticketNo = '' } = useParams();
  const complaint = useSupportComplaint(ticketNo);
  const reply = useReply(ticketNo);
  const close = useCloseComplaint(ticketNo);
  const [body, setBody] = useState('');
  const [notice, setNotice] = useState<{ text: string; warns: boolean } | null>(null);
  const say = (text: string, warns = false) => setNotice({ text, warns });
  const box = useRef<HTMLTextAreaElement>(null);

  if (complaint.isPending) return <Loading label={t('complaints.loading')} />;
  if (complaint.isError) return <LoadFailed error={complaint.error} onRetry={() => void complaint.refetch()} />;
  const c = complaint.data;
  const send = (event: FormEvent) => {
    event.preventDefault();
    reply.mutate(
      { body, seenMessageId: c.messages.at(-1)?.id ?? null },
      {
        onSuccess: (after) => {
          setBody('');
          // The borrower wrote while this reply was being written: sent, but their newest message still waits.
          if (after.status === 'answered') say(t('complaints.replied'));
          else say(t('complaints.repliedNewMessage'), true);
        },
      },
    );
  };
  const firstBorrowerMessage = c.messages.find((m) => m.author === 'borrower')?.id;
  const photosOf = (messageId: string) =>
    c.images.filter((img) => img.messageId === messageId || (img.messageId == null && messageId === firstBorrowerMessage));
  // Photos are numbered in the order the conversation shows them.
  const photoNo = new Map<string, number>();
  for (const m of c.messages) for (const img of photosOf(m.id)) photoNo.set(img.imageId, photoNo.size + 1);
  return (
    <section>
      <div className="page-head">
        <h1>
          {t('complaints.ticket')} {c.ticketNo}
        </h1>
        <Link to={consolePaths.complaints}>{t('complaints.back')}</Link>
      </div>
      {notice && (
        <p role="status" className={`notice ${notice.warns ? 'notice--warning' : 'notice--success'}`}>
          {notice.text}
        </p>
      )}
      <dl className="facts facts--aligned">
        <div>
          <dt>{t('complaints.status')}</dt>
          <dd>
            {t(`complaints.statuses.${c.status}`)} {c.overdue && <strong className="flag">{t('complaints.overdue')}</strong>}
          </dd>
        </div>
        <div>
          <dt>{t('complaints.market')}</dt>
          <dd>{t(`market.${c.market}`)}</dd>
        </div>
        <div>
          <dt>{t('complaints.category')}</dt>
          <dd>{c.categoryLabel}</dd>
        </div>
        <div>
          <dt>{t('complaints.borrower')}</dt>
          <dd>{c.phoneMasked ?? '—'}</dd>
        </div>
        <div>
          <dt>{t('complaints.order')}</dt>
          <dd>{c.orderNo ? <Link to={consolePaths.order(c.orderNo)}>{c.orderNo}</Link> : '—'}</dd>
        </div>
        <div>
          <dt>{t('complaints.received')}</dt>
          <dd>{dateTime(c.createdAt)}</dd>
        </div>
        <div>
          <dt>{t('complaints.resolveBy')}</dt>
          <dd>{day(c.resolveBy)}</dd>
        </div>
        <div>
          <dt>{t('complaints.score')}</dt>
          <dd>{c.score != null ? `${c.score} / 5${c.scoreComment ? ` — ${c.scoreComment}` : ''}` : '—'}</dd>
        </div>
        <div>
          <dt>{t('complaints.assignee')}</dt>
          <dd>{c.assigneeName ?? <span className="muted">{t('complaints.unassigned')}</span>}</dd>
        </div>
      </dl>
      {c.status !== 'closed' && <Assignment complaint={c} onDone={say} />}
      <h2>{t('complaints.conversation')}</h2>
      <ol className="conversation">
        {c.messages.map((m) => {
          const photos = photosOf(m.id);
          return (
            <li key={m.id} className={`conversation__item conversation__item--${m.author}`}>
              <strong>{t(`complaints.author.${m.author}`)}</strong> <span className="muted">{dateTime(m.createdAt)}</span>
              <p>{m.body}</p>
              {photos.length > 0 && (
                <div className="complaint-images">
                  {photos.map((img) => {
                    const n = photoNo.get(img.imageId) ?? 0;
                    return (
                      <a key={img.imageId} href={complaintImageUrl(img.imageId)} target="_blank" rel="noopener noreferrer">
                        <img src={complaintImageUrl(img.imageId)} alt={t('complaints.photo', { n })} width={160} height={120} />
                      </a>
                    );
                  })}
                </div>
              )}
            </li>
          );
        })}
      </ol>
      {c.status !== 'closed' && (
        <form className="reply-form" onSubmit={send}>
          <CannedPicker
            lang={c.lang}
            onPick={(text) => {
              setBody(text);
              box.current?.focus();
            }}
          />
          <label htmlFor="reply">{t('complaints.reply')}</label>
          <textarea id="reply" ref={box} rows={5} maxLength={2000} value={body} onChange={(e) => setBody(e.target.value)} />
          {reply.isError && <p className="field-error">{errorText(reply.error, t)}</p>}
          <div className="actions">
            <button type="submit" className="button" disabled={reply.isPending || body.trim() === ''}>
              {t('complaints.send')}
            </button>
            <button
              type="button"
              className="button button--quiet"
              disabled={close.isPending || c.status !== 'answered'}
              aria-describedby={c.status !== 'answered' ? 'close-hint' : undefined}
              onClick={() => close.mutate(undefined, { onSuccess: () => say(t('complaints.closed')) })}
            >
              {t('complaints.close')}
            </button>
          </div>
          {c.status !== 'answered' && <p id="close-hint" className="field-hint">{t('complaints.closeHint')}</p>}
          {close.isError && <p className="field-error">{errorText(close.error, t)}</p>}
        </form>
      )}
    </section>
  );
}

/** "Assign to me", and reassigning to another support operator (or nobody). */
function Assignment({ complaint, onDone }: { complaint: SupportComplaint; onDone: (notice: string) => void }) {
  const { t } = useTranslation();
  const me = useOperator();
  const assign = useAssign(complaint.ticketNo);
  const assignees = useAssignees(complaint.market);
  const [choice, setChoice] = useState('');
  const done = (assigneeId: string | null) =>
    assign.mutate(assigneeId, {
      onSuccess: (detail) =>
        onDone(detail.assigneeName ? t('complaints.assignedTo', { name: detail.assigneeName }) : t('complaints.unassignedNow')),
    });
  return (
    <div className="assign">
      {complaint.assigneeId !== me.id && (
        <button type="button" className="button" disabled={assign.isPending} onClick={() => done(me.id)}>
          {t('complaints.assignToMe')}
        </button>
      )}
      <label htmlFor="reassign">{t('complaints.reassign')}</label>
      <select id="reassign" value={choice} onChange={(e) => setChoice(e.target.value)} disabled={!assignees.data}>
        <option value="">{t('complaints.choose')}</option>
        {(assignees.data ?? [])
          .filter((a) => a.id !== complaint.assigneeId)
          .map((a) => (
            <option key={a.id} value={a.id}>
              {a.username}
            </option>
          ))}
        {complaint.assigneeId && <option value="-">{t('complaints.nobody')}</option>}
      </select>
      <button
        type="button"
        className="button button--quiet"
        disabled={assign.isPending || choice === ''}
        onClick={() => {
          done(choice === '-' ? null : choice);
          setChoice('');
        }}
      >
        {t('complaints.assign')}
      </button>
      {assign.isError && <p className="field-error">{errorText(assign.error, t)}</p>}
    </div>
  );
}

/** The canned replies of the ticket's language: choosing one fills the reply box, to edit before sending. */
function CannedPicker({ lang, onPick }: { lang: string; onPick: (text: string) => void }) {
  const { t } = useTranslation();
  const canned = useCannedReplies();
  const mine = (canned.data ?? []).filter((r) => r.lang === lang);
  return (
    <div className="canned-pick">
      <label htmlFor="canned">{t('complaints.canned', { language: t(`canned.lang.${lang}`) })}</label>
      <select
        id="canned"
        value=""
        disabled={mine.length === 0}
        onChange={(e) => {
          const found = mine.find((r) => r.id === e.target.value);
          if (found) onPick(found.body);
        }}
      >
        <option value="">{canned.isPending ? t('complaints.cannedLoading') : mine.length === 0 ? t('complaints.cannedNone') : t('complaints.cannedChoose')}</option>
        {mine.map((r) => (
          <option key={r.id} value={r.id}>
            {r.title}
          </option>
        ))}
      </select>
    </div>
  );
}
