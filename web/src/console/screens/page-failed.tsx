import { useTranslation } from 'react-i18next';

/**
 * In place of a page that threw while rendering (the shared `ErrorBoundary` around the signed-in pages), the header
 * and the navigation still around it; React reports the error itself (console.error).
 */
export function PageFailed() {
  const { t } = useTranslation();
  return (
    <section className="panel" role="alert">
      <h1>{t('pageFailed.title')}</h1>
      <p>{t('pageFailed.text')}</p>
      <button type="button" className="button" onClick={() => window.location.reload()}>
        {t('pageFailed.reload')}
      </button>
    </section>
  );
}
