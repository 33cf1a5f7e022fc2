import { useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, NavLink, useNavigate } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { useSignOut } from '../api/session';
import type { Operator } from '../api/types';
import { consolePaths } from '../paths';
import { ORDER_ROLES, hasAnyRole, sectionsFor } from '../sections';

/** The frame of every signed-in page: the sections the operator's roles allow, an order lookup, who is signed in. */
export function ConsoleLayout({ operator, children }: { operator: Operator; children: ReactNode }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const signOut = useSignOut();
  const sections = sectionsFor(operator);

  const onSignOut = () =>
    signOut.mutate(undefined, { onSettled: () => void navigate(consolePaths.signIn, { replace: true }) });

  return (
    <div className="console">
      <header className="console-header">
        <Link className="console-brand" to="/">
          {t('brand')}
        </Link>
        <nav aria-label={t('layout.navigation')}>
          <ul className="console-nav">
            {sections.map((section) => (
              <li key={section.key}>
                <NavLink to={section.path}>{t(`nav.${section.key}`)}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        {hasAnyRole(operator, ORDER_ROLES) && <OrderLookup />}
        <div className="console-operator">
          <span>
            <strong>{operator.username}</strong>
            <span className="console-roles">{operator.roles.map((role) => t(`role.${role}`)).join(', ')}</span>
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
      <main className="console-main">{children}</main>
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
