import { useTranslation } from 'react-i18next';
import { NavLink } from 'react-router';

/** The signed-in borrower's two places: the loans on offer and their account. */
export function TabBar() {
  const { t } = useTranslation();
  const className = ({ isActive }: { isActive: boolean }) => (isActive ? 'tab-bar__link tab-bar__link--active' : 'tab-bar__link');
  return (
    <nav className="tab-bar" aria-label={t('tabs.label')}>
      <NavLink className={className} to="/products" end>
        {t('tabs.products')}
      </NavLink>
      <NavLink className={className} to="/me">
        {t('tabs.me')}
      </NavLink>
    </nav>
  );
}
