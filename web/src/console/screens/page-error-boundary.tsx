import { Component, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * A page that throws while rendering shows a notice that says so, with a reload, in place of the page, the header and
 * the navigation still around it (without it, React would leave the whole console blank); opening another page
 * tries again. React reports the error itself (console.error).
 */
export class PageErrorBoundary extends Component<{ resetKey: string; children: ReactNode }, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  componentDidUpdate(previous: { resetKey: string }): void {
    if (this.state.failed && previous.resetKey !== this.props.resetKey) this.setState({ failed: false });
  }

  render() {
    return this.state.failed ? <PageFailed /> : this.props.children;
  }
}

function PageFailed() {
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
