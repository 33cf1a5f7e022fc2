import { Button } from 'antd-mobile';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Screen } from '../../layout/screen';
import { StateNotice } from '../../ui/state-notice';

/** The error notice for failures the app cannot recover from (a screen that failed to load or to render). */
export function ErrorPage() {
  const { t } = useTranslation();
  return (
    <Screen title={t('error.title')}>
      <StateNotice
        kind="error"
        title={t('error.title')}
        text={t('error.body')}
        actions={
          <>
            <Button color="primary" onClick={() => window.location.reload()}>
              {t('error.reload')}
            </Button>
            <Link className="state__link" to="/me">
              {t('error.toAccount')}
            </Link>
          </>
        }
      />
    </Screen>
  );
}

export function NotFoundPage() {
  const { t } = useTranslation();
  return (
    <Screen title={t('error.notFoundTitle')}>
      <StateNotice
        kind="empty"
        title={t('error.notFoundTitle')}
        text={t('error.notFoundBody')}
        actions={
          <Link className="state__link" to="/me">
            {t('error.toAccount')}
          </Link>
        }
      />
    </Screen>
  );
}

/**
 * The notice when the app's texts cannot be fetched (offline before the catalog was ever cached), shown by
 * main.tsx instead of the app and its router: reloading is all that can help.
 */
export function TextsFailedPage() {
  const { t } = useTranslation();
  return (
    <div className="app">
      <main className="screen">
        <StateNotice
          kind="error"
          title={t('error.title')}
          text={t('error.body')}
          actions={
            <Button color="primary" onClick={() => window.location.reload()}>
              {t('error.reload')}
            </Button>
          }
        />
      </main>
    </div>
  );
}
