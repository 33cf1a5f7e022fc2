import { Button, Rate, TextArea, Toast } from 'antd-mobile';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { ApiError } from '@/shared/api/http';
import { useMarket } from '@/shared/market/market-context';
import { complaintImageUrl, useComplaint, useScoreComplaint } from '../../api/support';
import type { ComplaintDetail } from '../../api/types';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { StatusTag } from './complaints-page';
import './support.css';

/** One complaint: the ticket, the conversation, the photos, where to escalate when overdue, and the rating. */
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
          <StateNotice kind="empty" title={t('complaints.notFound')} />
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
  const when = new Intl.DateTimeFormat(market.locale, { dateStyle: 'medium', timeStyle: 'short' });
  const day = new Intl.DateTimeFormat(market.locale, { dateStyle: 'long', timeZone: 'UTC' });
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
          <p className="complaint__meta">{t('complaints.resolveBy', { date: day.format(new Date(`${complaint.resolveBy}T00:00:00Z`)) })}</p>
        )}
      </section>
      {complaint.overdue && (
        <section className="complaint__escalate" role="note" aria-labelledby="escalate-heading">
          <h2 id="escalate-heading">{t('complaints.escalateTitle')}</h2>
          <p>{t(`complaints.escalateText.${complaint.market}`)}</p>
          <p>
            <a href={complaint.escalation.url} rel="noopener noreferrer" target="_blank">
              {complaint.escalation.name}
            </a>
            {' · '}
            <a href={`tel:${complaint.escalation.phone}`}>{complaint.escalation.phone}</a>
          </p>
        </section>
      )}
      <ol className="complaint__messages" aria-label={t('complaints.conversation')}>
        {complaint.messages.map((m, i) => (
          <li key={i} className={`complaint__message complaint__message--${m.author}`}>
            <span className="complaint__author">{t(`complaints.author.${m.author}`)}</span>
            <p className="complaint__body">{m.body}</p>
            <time className="complaint__time">{when.format(new Date(m.createdAt))}</time>
          </li>
        ))}
      </ol>
      {complaint.status === 'open' && <p className="complaint__meta">{t('complaints.waiting')}</p>}
      {complaint.images.length > 0 && (
        <div className="complaint__images">
          {complaint.images.map((img, i) => (
            <img key={img.imageId} src={complaintImageUrl(img.imageId)} alt={t('complaints.photoAlt', { n: i + 1 })} width={96} height={96} />
          ))}
        </div>
      )}
      {complaint.status !== 'open' && <Rating complaint={complaint} />}
    </div>
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
