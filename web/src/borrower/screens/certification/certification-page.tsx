import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { useMarket } from '@/shared/market/market-context';
import { useToast } from '@/shared/ui/toast';
import { CERT_STEPS, useCertification, useCertificationLog, type CertStatus, type Certification } from '../../api/certification';
import { Screen } from '../../layout/screen';
import { LoadingState, StateNotice } from '../../ui/state-notice';
import { ERROR_TOAST_MS } from '../../ui/use-error-toast';
import type { ProgressNotice } from './use-step-form';
import { formatDateTime } from '../orders/format';
import './certification.css';

/** `/certification`: the five steps with their status, the next one to do, and when each was saved. */
export function CertificationPage() {
  const { t } = useTranslation();
  const certification = useCertification();
  useNoticeFromNavigation();
  return (
    <Screen title={t('cert.progress.title')} backTo="/home">
      {certification.isPending ? (
        <LoadingState />
      ) : certification.isError ? (
        <StateNotice kind="error" title={t('cert.progress.loadFailed')} text={errorText(certification.error, t)} onRetry={() => void certification.refetch()} />
      ) : (
        <>
          <Progress certification={certification.data} />
          <History />
        </>
      )}
    </Screen>
  );
}

/**
 * A form that was refused because an earlier step is missing sends the borrower here with the server's
 * message, shown once as a toast. The layout clears toasts when the path changes, after this screen's
 * effects have run, so the toast waits for the next task; the message then leaves the history entry, so
 * going back and forth does not show it again.
 */
function useNoticeFromNavigation() {
  const location = useLocation();
  const navigate = useNavigate();
  const toast = useToast();
  const notice = (location.state as Partial<ProgressNotice> | null)?.notice;
  useEffect(() => {
    if (typeof notice !== 'string') return;
    const timer = setTimeout(() => {
      toast(notice, { kind: 'error', durationMs: ERROR_TOAST_MS });
      void navigate({ pathname: location.pathname, search: location.search }, { replace: true, state: null });
    }, 0);
    return () => clearTimeout(timer);
  }, [location.pathname, location.search, navigate, notice, toast]);
}

function Progress({ certification }: { certification: Certification }) {
  const { t } = useTranslation();
  const statusOf = (step: string): CertStatus => certification.steps.find((candidate) => candidate.step === step)?.certStatus ?? 'todo';
  const done = CERT_STEPS.filter((step) => statusOf(step) === 'done').length;
  const total = CERT_STEPS.length;
  const count = t('cert.progress.count', { done, total });
  return (
    <>
      <section className="card cert-progress" aria-labelledby="cert-progress-count">
        <p className="cert-progress__intro">{t('cert.progress.intro')}</p>
        <p className="cert-progress__count" id="cert-progress-count">
          {count}
        </p>
        <div className="cert-progress__bar" role="progressbar" aria-valuemin={0} aria-valuemax={total} aria-valuenow={done} aria-valuetext={count} aria-labelledby="cert-progress-count">
          <div className="cert-progress__fill" style={{ width: `${(done / total) * 100}%` }} />
        </div>
      </section>

      {certification.complete && (
        <section className="card cert-complete" aria-labelledby="cert-complete-title">
          <h2 className="cert-complete__title" id="cert-complete-title">
            {t('cert.progress.completeTitle')}
          </h2>
          <p>{t('cert.progress.completeText')}</p>
          <Link className="cert-button" to="/home">
            {t('cert.progress.toLoans')}
          </Link>
        </section>
      )}

      <ol className="cert-steps">
        {CERT_STEPS.map((step, index) => {
          const name = t(`cert.steps.${step}`);
          const isDone = statusOf(step) === 'done';
          const isNext = certification.next === step;
          const state = isDone ? 'done' : isNext ? 'next' : 'todo';
          return (
            <li key={step} className={`cert-step cert-step--${state}`} aria-current={isNext ? 'step' : undefined}>
              <span className="cert-step__marker" aria-hidden="true">
                {isDone ? '✓' : index + 1}
              </span>
              <div className="cert-step__body">
                <h2 className="cert-step__name">{name}</h2>
                <p className="cert-step__status">{t(`cert.progress.status.${state}`)}</p>
                {isNext && (
                  <Link className="cert-button" to={`/certification/${step}`}>
                    {done === 0 ? t('cert.progress.start') : t('cert.progress.continue')}
                  </Link>
                )}
              </div>
              {isDone && (
                <Link className="cert-step__edit" to={`/certification/${step}`} aria-label={t('cert.progress.edit', { step: name })}>
                  {t('cert.progress.editShort')}
                </Link>
              )}
            </li>
          );
        })}
      </ol>
    </>
  );
}

/** The advance log, oldest first, each save at its time in the market's words. */
function History() {
  const { t } = useTranslation();
  const market = useMarket();
  const log = useCertificationLog();
  let body;
  if (log.isPending) body = <LoadingState />;
  else if (log.isError) {
    body = (
      <div className="cert-log__note" role="alert">
        <p>
          {t('cert.progress.historyFailed')} {errorText(log.error, t)}
        </p>
        <button type="button" className="link-button" onClick={() => void log.refetch()}>
          {t('state.retry')}
        </button>
      </div>
    );
  } else if (log.data.length === 0) body = <p className="cert-log__note">{t('cert.progress.historyEmpty')}</p>;
  else {
    body = (
      <ol className="cert-log">
        {log.data.map((entry) => (
          <li key={`${entry.step}-${entry.at}-${entry.event}`} className="cert-log__entry">
            <span>{t(`cert.progress.event.${entry.event === 'updated' ? 'updated' : 'completed'}`, { step: t(`cert.steps.${entry.step}`) })}</span>
            <time className="cert-log__time" dateTime={new Date(entry.at).toISOString()}>
              {formatDateTime(entry.at, market)}
            </time>
          </li>
        ))}
      </ol>
    );
  }
  return (
    <section className="card cert-history" aria-labelledby="cert-history-title">
      <h2 className="cert-history__title" id="cert-history-title">
        {t('cert.progress.history')}
      </h2>
      {body}
    </section>
  );
}
