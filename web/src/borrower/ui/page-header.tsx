import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { useDocumentTitle } from './use-document-title';

/**
 * The top bar of every screen and the page title. `backTo` gives a back button: it goes back in history
 * when the person came from inside the app, and to `backTo` when they opened this screen directly.
 * Hand-made rather than antd-mobile's NavBar, whose back area is a div a keyboard cannot reach.
 */
export function PageHeader({ title, backTo }: { title: string; backTo?: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  useDocumentTitle(title);
  const onBack = () => {
    if (location.key !== 'default') void navigate(-1);
    else if (backTo) void navigate(backTo, { replace: true });
  };
  return (
    <header className="page-header">
      <div className="page-header__side">
        {backTo && (
          <button type="button" className="page-header__back" onClick={onBack}>
            <span aria-hidden="true">‹</span> {t('layout.back')}
          </button>
        )}
      </div>
      <h1 className="page-header__title">{title}</h1>
      <div className="page-header__side" />
    </header>
  );
}
