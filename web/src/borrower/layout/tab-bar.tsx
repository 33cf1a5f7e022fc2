import { useTranslation } from 'react-i18next';
import { NavLink } from 'react-router';

/** The signed-in borrower's three places: home, their loans, and their account. */
export function TabBar() {
  const { t } = useTranslation();
  const className = ({ isActive }: { isActive: boolean }) => (isActive ? 'tab-bar__link tab-bar__link--active' : 'tab-bar__link');
  return (
    <nav className="tab-bar" aria-label={t('tabs.label')}>
      <NavLink className={className} to="/home" end>
        {t('tabs.home')}
      </NavLink>
      <NavLink className={className} to="/orders">
        {t('tabs.orders')}
      </NavLink>
      <NavLink className={className} to="/me">
        {t('tabs.me')}
      </NavLink>
    </nav>
  );
}
