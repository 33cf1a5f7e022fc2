// The loading, failure and refusal states every screen shares.
import { useEffect, useRef } from 'react';
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

/** A refusal said at the top of a screen; each one set is a new object, so the same words said again are focused again. */
export interface ScreenNotice {
  text: string;
}

/**
 * A refusal of an action said at screen level, not in the row or panel it came from: after a 409 (someone else acted
 * first) the screen reads its data again, and that row or panel may be gone with anything drawn in it. Focused when it
 * appears, so the operator reads it (and a screen reader says it) wherever the focus was.
 */
export function ScreenAlert({ notice }: { notice: ScreenNotice | null }) {
  const ref = useFocusOn<HTMLParagraphElement>(notice);
  if (!notice) return null;
  return (
    <p ref={ref} role="alert" tabIndex={-1} className="notice notice--error">
      {notice.text}
    </p>
  );
}

/**
 * A ref for a screen's notice (give it `tabIndex={-1}`) that is focused each time `notice` is set anew: an action done
 * in a list row often takes its button away (the row changes or goes once the list is read again), and the focus would
 * fall back to the page's start. The notice says what happened, and Tab goes on from there.
 */
export function useFocusOn<T extends HTMLElement>(notice: object | null) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (notice) ref.current?.focus();
  }, [notice]);
  return ref;
}
