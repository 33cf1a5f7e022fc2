import { useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, NavLink, useNavigate } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { useSignOut } from '../api/session';
import type { Operator } from '../api/types';
import { consolePaths } from '../paths';
import { marketName } from '../format';
import { ALL_MARKETS } from '../operator-context';
import { ORDER_ROLES, groupedSectionsFor, hasAnyRole } from '../sections';

/**
 * The frame of every signed-in page: a bar with the order lookup and who is signed in (roles and markets), and a side
 * navigation of the sections the operator's roles allow, in groups, so that thirteen sections fit beside the page at
 * 1366 pixels wide (above a narrow window, the groups wrap above the page instead).
 */
export function ConsoleLayout({ operator, children }: { operator: Operator; children: ReactNode }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const signOut = useSignOut();
  const groups = groupedSectionsFor(operator);
  const markets = ALL_MARKETS.filter((m) => operator.markets.includes(m));

  const onSignOut = () =>
    signOut.mutate(undefined, { onSettled: () => void navigate(consolePaths.signIn, { replace: true }) });

  return (
    <div className="console">
      <a className="skip-link" href="#console-main">
        {t('layout.skip')}
      </a>
      <header className="console-header">
        <Link className="console-brand" to="/">
          {t('brand')}
        </Link>
        {hasAnyRole(operator, ORDER_ROLES) && <OrderLookup />}
        <div className="console-operator">
          <span>
            <strong>{operator.username}</strong>
            <span className="console-roles">
              {operator.roles.map((role) => t(`role.${role}`)).join(', ')} · {markets.map((m) => marketName(m, t)).join(', ')}
            </span>
          </span>
          <button type="button" className="button button--quiet" onClick={onSignOut} disabled={signOut.isPending}>
            {t('layout.signOut')}
          </button>
        </div>
      </header>
      {signOut.isError && signOut.error.status !== 401 && (
        <p role="alert" className="notice notice--error console-banner">
          {errorText(signOut.error, t)}
        </p>
      )}
      <div className="console-body">
        <nav className="console-side" aria-label={t('layout.navigation')}>
          {groups.map(({ group, sections }) => (
            <div className="console-nav-group" key={group}>
              <p className="console-nav-title" id={`nav-group-${group}`}>
                {t(`navGroup.${group}`)}
              </p>
              <ul className="console-nav" aria-labelledby={`nav-group-${group}`}>
                {sections.map((section) => (
                  <li key={section.key}>
                    <NavLink to={section.path}>{t(`nav.${section.key}`)}</NavLink>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </nav>
        <main className="console-main" id="console-main" tabIndex={-1}>
          {children}
        </main>
      </div>
    </div>
  );
}

/** Opens an order by its number, from any page. */
function OrderLookup() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [orderNo, setOrderNo] = useState('');
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const wanted = orderNo.trim().toUpperCase();
    if (!wanted) return;
    setOrderNo('');
    void navigate(consolePaths.order(wanted));
  };
  return (
    <form className="console-lookup" role="search" onSubmit={onSubmit}>
      <label htmlFor="order-lookup" className="visually-hidden">
        {t('layout.lookupLabel')}
      </label>
      <input
        id="order-lookup"
        type="search"
        placeholder={t('layout.lookupPlaceholder')}
        value={orderNo}
        onChange={(event) => setOrderNo(event.target.value)}
        spellCheck={false}
        autoComplete="off"
      />
      <button type="submit" className="button button--quiet">
        {t('layout.lookupOpen')}
      </button>
    </form>
  );
}
