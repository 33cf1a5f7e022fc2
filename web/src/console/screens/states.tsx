// The loading, failure and refusal states every screen shares.
import { useTranslation } from 'react-i18next';
import { errorText } from '@/shared/api/error-text';

export function Loading({ label }: { label: string }) {
  return (
    <p role="status" className="loading">
      {label}
    </p>
  );
}

/** A read that failed, with the server's words and a way to try again. */
export function LoadFailed({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useTranslation();
  return (
    <div role="alert" className="notice notice--error">
      <p>{errorText(error, t)}</p>
      {onRetry && (
        <button type="button" className="button button--quiet" onClick={onRetry}>
          {t('common.retry')}
        </button>
      )}
    </div>
  );
}

/** The page exists but the operator's roles do not open it. */
export function NotAllowed() {
  const { t } = useTranslation();
  return (
    <section className="panel">
      <h1>{t('notAllowed.title')}</h1>
      <p>{t('notAllowed.text')}</p>
    </section>
  );
}
