import { Button, DotLoading } from 'antd-mobile';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** A screen's loading state: a spinner with its words for screen readers (`text`, or "Loading…"). */
export function LoadingState({ text }: { text?: string } = {}) {
  const { t } = useTranslation();
  return (
    <div className="state state--loading" role="status" aria-live="polite">
      <DotLoading color="primary" aria-hidden="true" />
      <span className="state__text">{text ?? t('layout.loading')}</span>
    </div>
  );
}

/** A screen's error or empty state: what happened, and what the person can do about it. */
export function StateNotice({
  kind,
  title,
  text,
  onRetry,
  actions,
}: {
  kind: 'error' | 'empty';
  title: string;
  text?: string;
  onRetry?: () => void;
  actions?: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <section className={`state state--${kind}`} role={kind === 'error' ? 'alert' : undefined}>
      <h2 className="state__title">{title}</h2>
      {text && <p className="state__text">{text}</p>}
      {onRetry && (
        <Button color="primary" fill="outline" onClick={onRetry}>
          {t('state.retry')}
        </Button>
      )}
      {actions}
    </section>
  );
}
