import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useAppName } from './use-app-name';

export function useDocumentTitle(page: string): void {
  const { t } = useTranslation();
  const app = useAppName();
  useEffect(() => {
    document.title = app ? t('meta.title', { page, app }) : page;
  }, [app, page, t]);
}
