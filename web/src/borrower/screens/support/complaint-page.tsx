import { Button, Form, Rate, TextArea, Toast } from 'antd-mobile';
import type { ImageUploadItem } from 'antd-mobile';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { ApiError } from '@/shared/api/http';
import { useMarket } from '@/shared/market/market-context';
import { complaintImageUrl, useComplaint, useReplyToComplaint, useScoreComplaint } from '../../api/support';
import type { ComplaintDetail } from '../../api/types';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { formatDateTime, formatDay } from '../orders/format';
import { StatusTag } from './complaints-page';
import { PhotoPicker, photoIds } from './photo-picker';
import './support.css';

const MAX_REPLY = 2000;
const MAX_PHOTOS = 3;
const MAX_PHOTO_BYTES = 5 * 1024 * 1024;

/** One complaint: the ticket, the conversation, the photos, where to escalate (when overdue, or once closed), and the rating. */
export function ComplaintPage() {
  const { t } = useTranslation();
  const { ticketNo = '' } = useParams();
  const complaint = useComplaint(ticketNo);
  return (
    <Screen title={t('complaints.detailTitle')} backTo="/complaints">
      {complaint.isPending ? (
        <LoadingState />
      ) : complaint.isError ? (
        complaint.error instanceof ApiError && complaint.error.status === 404 ? (
          <StateNotice
            kind="empty"
            title={t('complaints.notFound')}
            text={t('complaints.notFoundText')}
            actions={
              <Link className="state__link" to="/complaints">
                {t('support.complaints')}
              </Link>
            }
          />
        ) : (
          <StateNotice kind="error" title={t('complaints.loadFailed')} text={errorText(complaint.error, t)} onRetry={() => void complaint.refetch()} />
        )
      ) : (
        <ComplaintView complaint={complaint.data} />
      )}
    </Screen>
  );
}

function ComplaintView({ complaint }: { complaint: ComplaintDetail }) {
  const { t } = useTranslation();
  const market = useMarket();
  // A photo is shown with the message it was sent with; one without (none such is written) with the complaint's text.
  const firstBorrowerMessage = complaint.messages.find((m) => m.author === 'borrower')?.id;
  const photosOf = (messageId: string) =>
    complaint.images.filter((img) => img.messageId === messageId || (img.messageId == null && messageId === firstBorrowerMessage));
  // Photos are numbered in the order the thread shows them.
  const photoNo = new Map<string, number>();
  for (const m of complaint.messages) for (const img of photosOf(m.id)) photoNo.set(img.imageId, photoNo.size + 1);
  return (
    <div className="support complaint">
      <section className="complaint__head" aria-label={t('complaints.ticket')}>
        <p className="complaint__ticket">
          {t('complaints.ticket')}: <strong>{complaint.ticketNo}</strong>
        </p>
        <StatusTag complaint={complaint} />
        <p className="complaint__meta">
          {complaint.categoryLabel}
          {complaint.orderNo ? ` · ${complaint.orderNo}` : ''}
        </p>
        {complaint.status !== 'closed' && !complaint.overdue && (
          <p className="complaint__meta">{t('complaints.resolveBy', { date: formatDay(Date.parse(`${complaint.resolveBy}T12:00:00Z`), market) })}</p>
        )}
      </section>
      {/* A closed complaint says where to escalate in its closed section instead: never both. */}
      {complaint.overdue && complaint.status !== 'closed' && (
        <section className="complaint__escalate" role="note" aria-labelledby="escalate-heading">
          <h2 id="escalate-heading">{t('complaints.escalateTitle')}</h2>
          <p>{t(`complaints.escalateText.${complaint.market}`)}</p>
          <EscalationContacts escalation={complaint.escalation} />
        </section>
      )}
      <ol className="complaint__messages" aria-label={t('complaints.conversation')}>
        {complaint.messages.map((m) => {
          const photos = photosOf(m.id);
          return (
            <li key={m.id} className={`complaint__message complaint__message--${m.author}`}>
              <span className="complaint__author">{t(`complaints.author.${m.author}`)}</span>
              <p className="complaint__body">{m.body}</p>
              {photos.length > 0 && (
                <div className="complaint__images">
                  {photos.map((img) => {
                    const n = photoNo.get(img.imageId) ?? 0;
                    const alt = t('complaints.photoAlt', { n });
                    return (
                      <a key={img.imageId} href={complaintImageUrl(img.imageId)} target="_blank" rel="noopener noreferrer" aria-label={t('complaints.openPhoto', { n })}>
                        <img src={complaintImageUrl(img.imageId)} alt={alt} width={96} height={96} />
                      </a>
                    );
                  })}
                </div>
              )}
              <time className="complaint__time" dateTime={new Date(m.createdAt).toISOString()}>
                {formatDateTime(m.createdAt, market)}
              </time>
            </li>
          );
        })}
      </ol>
      {complaint.status === 'open' && <p className="complaint__meta">{t('complaints.waiting')}</p>}
      {complaint.status === 'closed' ? (
        <section className="complaint__closed" aria-labelledby="closed-heading">
          <h2 id="closed-heading">{t('complaints.closedTitle')}</h2>
          <p>{t('complaints.closedText')}</p>
          {/* Support may close a complaint right after answering it: a borrower not satisfied with the answer may take
              it to the regulator (RBI's Integrated Ombudsman, OJK), not round new tickets that restart our deadline. */}
          <p>{t(`complaints.closedEscalateText.${complaint.market}`)}</p>
          <EscalationContacts escalation={complaint.escalation} />
          <Link to="/complaints/new">{t('complaints.closedNew')}</Link>
        </section>
      ) : (
        <ReplyForm ticketNo={complaint.ticketNo} />
      )}
      {complaint.status !== 'open' && <Rating complaint={complaint} />}
    </div>
  );
}

/** The regulator's channel of the complaint's market, as the server names it: its site and its phone. */
function EscalationContacts({ escalation }: { escalation: ComplaintDetail['escalation'] }) {
  return (
    <p>
      <a href={escalation.url} rel="noopener noreferrer" target="_blank">
        {escalation.name}
      </a>
      {' · '}
      <a href={`tel:${escalation.phone}`}>{escalation.phone}</a>
    </p>
  );
}

interface ReplyFields {
  body?: string;
  photos?: ImageUploadItem[];
}

/** The borrower's reply while the complaint is not closed: the text (required, at most 2000 characters) and up to
 * three photos. An empty reply is marked on its field; a complaint closed meanwhile says so where the reply was. */
function ReplyForm({ ticketNo }: { ticketNo: string }) {
  const { t } = useTranslation();
  const reply = useReplyToComplaint(ticketNo);
  const [form] = Form.useForm<ReplyFields>();
  const send = (values: ReplyFields) => {
    reply.mutate(
      { body: values.body ?? '', imageIds: photoIds(values.photos) },
      {
        onSuccess: () => {
          form.resetFields();
          Toast.show({ icon: 'success', content: t('complaints.replied') });
        },
        onError: (error) => {
          if (error.code === 'complaint_closed') {
            form.setFields([{ name: 'body', errors: [t('complaints.closedRefused')] }]);
            return;
          }
          const named = Object.entries(error.fields).filter(([name]) => name === 'body' || name === 'imageIds');
          if (named.length > 0) {
            form.setFields(named.map(([name, message]) => ({ name: name === 'imageIds' ? 'photos' : name, errors: [message] })));
          } else {
            form.setFields([{ name: 'body', errors: [errorText(error, t)] }]);
          }
        },
      },
    );
  };
  return (
    <section className="complaint__reply" aria-labelledby="reply-heading">
      <h2 id="reply-heading">{t('complaints.replyTitle')}</h2>
      <Form
        form={form}
        layout="vertical"
        className="complaint-form"
        initialValues={{ photos: [] }}
        onFinish={send}
        footer={
          <Button block type="submit" color="primary" loading={reply.isPending}>
            {t('complaints.sendReply')}
          </Button>
        }
      >
        <Form.Item name="body" label={t('complaints.replyLabel')} rules={[{ required: true, whitespace: true, message: t('complaints.replyRequired') }]}>
          <TextArea aria-label={t('complaints.replyLabel')} rows={3} maxLength={MAX_REPLY} showCount placeholder={t('complaints.replyPlaceholder')} />
        </Form.Item>
        <Form.Item name="photos" label={t('complaints.photos', { max: MAX_PHOTOS })}>
          <PhotoPicker maxCount={MAX_PHOTOS} maxImageBytes={MAX_PHOTO_BYTES} />
        </Form.Item>
      </Form>
    </section>
  );
}

function Rating({ complaint }: { complaint: ComplaintDetail }) {
  const { t } = useTranslation();
  const score = useScoreComplaint(complaint.ticketNo);
  const [value, setValue] = useState(0);
  const [comment, setComment] = useState('');
  if (complaint.score != null) {
    return (
      <section className="complaint__rating" aria-labelledby="rating-heading">
        <h2 id="rating-heading">{t('complaints.rated')}</h2>
        <Rate readOnly value={complaint.score} aria-label={t('complaints.ratedValue', { score: complaint.score })} />
        {complaint.scoreComment && <p>{complaint.scoreComment}</p>}
      </section>
    );
  }
  return (
    <section className="complaint__rating" aria-labelledby="rating-heading">
      <h2 id="rating-heading">{t('complaints.rate')}</h2>
      {/* Buttons rather than the kit's Rate, which only reads pointer drags: these work with a keyboard too. */}
      <div className="stars" role="group" aria-label={t('complaints.rate')}>
        {[1, 2, 3, 4, 5].map((n) => (
          <button
            key={n}
            type="button"
            className={`stars__star${n <= value ? ' stars__star--on' : ''}`}
            aria-pressed={n === value}
            aria-label={t('complaints.ratedValue', { score: n })}
            onClick={() => setValue(n)}
          >
            ★
          </button>
        ))}
      </div>
      <TextArea aria-label={t('complaints.rateComment')} placeholder={t('complaints.rateComment')} value={comment} onChange={setComment} rows={2} maxLength={500} />
      <Button
        color="primary"
        disabled={value === 0}
        loading={score.isPending}
        onClick={() =>
          score.mutate(
            { score: value, comment: comment || undefined },
            {
              onSuccess: () => Toast.show({ icon: 'success', content: t('complaints.thanks') }),
              onError: (error) => Toast.show({ content: error.code === 'already_rated' ? t('complaints.alreadyRated') : errorText(error, t) }),
            },
          )
        }
      >
        {t('complaints.sendRating')}
      </Button>
    </section>
  );
}
