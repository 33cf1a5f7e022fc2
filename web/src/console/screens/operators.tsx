import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '@/shared/api/http';
import { errorText } from '@/shared/api/error-text';
import { useChangeOperator, useOperators } from '../api/admin';
import type { ApiMarket, OperatorAccount, Role } from '../api/types';
import { dateTime, marketName } from '../format';
import { useOperator, useOperatorMarkets } from '../operator-context';
import { LoadFailed, Loading } from './states';

const ROLES: readonly Role[] = ['admin', 'reviewer', 'finance', 'support', 'collections'];
/** The server's rule (auth::operators::MIN_PASSWORD_CHARS). */
export const MIN_PASSWORD_CHARS = 12;

/** Every operator with roles and status; create, change roles, disable or enable, reset a password. */
export function OperatorsScreen() {
  const { t } = useTranslation();
  const operators = useOperators();
  const change = useChangeOperator();
  const me = useOperator();
  const [notice, setNotice] = useState<string | null>(null);

  return (
    <section>
      <div className="page-head">
        <h1>{t('operators.title')}</h1>
      </div>
      {notice && (
        <p role="status" className="notice notice--success">
          {notice}
        </p>
      )}
      {change.isError && !(change.error instanceof ApiError && Object.keys(change.error.fields).length > 0) && (
        <LoadFailed error={change.error} />
      )}
      <CreateOperator onDone={(o) => setNotice(t('operators.created', { username: o.username }))} />
      {operators.isPending ? (
        <Loading label={t('operators.loading')} />
      ) : operators.isError ? (
        <LoadFailed error={operators.error} onRetry={() => void operators.refetch()} />
      ) : (
        <table className="table">
          <caption>{t('operators.caption', { count: operators.data.length })}</caption>
          <thead>
            <tr>
              <th scope="col">{t('operators.username')}</th>
              <th scope="col">{t('operators.roles')}</th>
              <th scope="col">{t('operators.markets')}</th>
              <th scope="col">{t('operators.status')}</th>
              <th scope="col">{t('operators.since')}</th>
              <th scope="col">{t('operators.lastSignIn')}</th>
              <th scope="col">{t('operators.actions')}</th>
            </tr>
          </thead>
          <tbody>
            {operators.data.map((o) => (
              <OperatorRow
                // A change saved meanwhile (by another admin, seen at the list's next refresh) starts the row's boxes
                // again from what is stored, so saving never sends back roles or markets read before it.
                key={`${o.id}:${o.roles.slice().sort().join()}:${o.markets.slice().sort().join()}`}
                operator={o}
                self={o.id === me.id}
                onNotice={setNotice}
                onToggle={() =>
                  change.mutate(
                    { kind: o.enabled ? 'disable' : 'enable', id: o.id },
                    { onSuccess: (x) => setNotice(t(x.enabled ? 'operators.enabledOne' : 'operators.disabledOne', { username: x.username })) },
                  )
                }
              />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function RoleBoxes({ value, onChange, name }: { value: Role[]; onChange: (roles: Role[]) => void; name: string }) {
  const { t } = useTranslation();
  return (
    <fieldset className="role-boxes">
      <legend className="visually-hidden">{t('operators.rolesOf', { name })}</legend>
      {ROLES.map((role) => (
        <label key={role}>
          <input
            type="checkbox"
            checked={value.includes(role)}
            onChange={(e) => onChange(e.target.checked ? [...value, role] : value.filter((r) => r !== role))}
          />{' '}
          {t(`role.${role}`)}
        </label>
      ))}
    </fieldset>
  );
}

/**
 * The markets an operator sees: India first, at least one (the server says so when none is ticked). An admin gives
 * only their own markets, so only those are offered (docs/API-CONSOLE.md, "Markets of an operator").
 */
function MarketBoxes({ value, onChange, name }: { value: ApiMarket[]; onChange: (markets: ApiMarket[]) => void; name: string }) {
  const { t } = useTranslation();
  const choices = useOperatorMarkets();
  return (
    <fieldset className="role-boxes">
      <legend className="visually-hidden">{t('operators.marketsOf', { name })}</legend>
      {choices.map((market) => (
        <label key={market}>
          <input
            type="checkbox"
            checked={value.includes(market)}
            onChange={(e) => onChange(e.target.checked ? choices.filter((m) => m === market || value.includes(m)) : value.filter((m) => m !== market))}
          />{' '}
          {marketName(market, t)}
        </label>
      ))}
    </fieldset>
  );
}

function OperatorRow({
  operator,
  self,
  onToggle,
  onNotice,
}: {
  operator: OperatorAccount;
  self: boolean;
  onToggle: () => void;
  onNotice: (text: string) => void;
}) {
  const { t } = useTranslation();
  const change = useChangeOperator();
  const [roles, setRoles] = useState<Role[]>(operator.roles);
  const [markets, setMarkets] = useState<ApiMarket[]>(operator.markets);
  const [password, setPassword] = useState<string | null>(null);
  const changed = roles.slice().sort().join() !== operator.roles.slice().sort().join();
  const marketsChanged = markets.slice().sort().join() !== operator.markets.slice().sort().join();
  const fields = change.error instanceof ApiError ? change.error.fields : {};

  function resetPassword(event: FormEvent) {
    event.preventDefault();
    if (password === null) return;
    change.mutate(
      { kind: 'password', id: operator.id, password },
      {
        onSuccess: (x) => {
          setPassword(null);
          onNotice(t('operators.passwordReset', { username: x.username }));
        },
      },
    );
  }

  return (
    <tr>
      <td>
        {operator.username}
        {self && <span className="muted"> ({t('operators.you')})</span>}
      </td>
      <td>
        <RoleBoxes value={roles} onChange={setRoles} name={operator.username} />
        {changed && (
          <button
            type="button"
            className="button"
            onClick={() => change.mutate({ kind: 'roles', id: operator.id, roles }, { onSuccess: (x) => onNotice(t('operators.rolesSaved', { username: x.username })) })}
          >
            {t('operators.saveRoles')}
          </button>
        )}
        {fields.roles && <p className="field-error">{fields.roles}</p>}
        {change.isError && !fields.roles && !fields.password && !fields.markets && <p className="field-error" role="alert">{errorText(change.error, t)}</p>}
      </td>
      <td>
        {self ? (
          // An admin's own markets are not theirs to change (the server answers own_admin_account).
          operator.markets.map((m) => marketName(m, t)).join(', ')
        ) : (
          <MarketBoxes value={markets} onChange={setMarkets} name={operator.username} />
        )}
        {!self && marketsChanged && (
          <button
            type="button"
            className="button"
            onClick={() => change.mutate({ kind: 'markets', id: operator.id, markets }, { onSuccess: (x) => onNotice(t('operators.marketsSaved', { username: x.username })) })}
          >
            {t('operators.saveMarkets')}
          </button>
        )}
        {fields.markets && <p className="field-error">{fields.markets}</p>}
      </td>
      <td>
        {operator.enabled ? t('operators.enabled') : t('operators.disabled')}
        {operator.passwordChangeRequired && <span className="muted"> · {t('operators.mustChangePassword')}</span>}
        {operator.locked && <span className="muted"> · {t('operators.locked')}</span>}
      </td>
      <td>{dateTime(operator.createdAt)}</td>
      <td>{operator.lastSignInAt === null ? <span className="muted">{t('operators.neverSignedIn')}</span> : dateTime(operator.lastSignInAt)}</td>
      <td>
        <div className="actions">
          {!self && (
            <button type="button" className="button button--quiet" onClick={onToggle}>
              {operator.enabled ? t('operators.disable') : t('operators.enable')}
            </button>
          )}
          {self ? null : password === null ? (
            <button type="button" className="button button--quiet" onClick={() => setPassword('')}>
              {t('operators.resetPassword')}
            </button>
          ) : (
            <form onSubmit={resetPassword} className="inline-form">
              <label>
                {t('operators.newPassword')}{' '}
                <input type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} minLength={MIN_PASSWORD_CHARS} required />
              </label>
              {fields.password && <p className="field-error">{fields.password}</p>}
              <button type="submit" className="button">{t('operators.setPassword')}</button>{' '}
              <button type="button" className="button button--quiet" onClick={() => setPassword(null)}>{t('common.cancel')}</button>
            </form>
          )}
        </div>
      </td>
    </tr>
  );
}

function CreateOperator({ onDone }: { onDone: (o: OperatorAccount) => void }) {
  const { t } = useTranslation();
  const change = useChangeOperator();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [roles, setRoles] = useState<Role[]>([]);
  // The admin's own markets by default, as the server gives a new operator when none are named.
  const own = useOperatorMarkets();
  const [markets, setMarkets] = useState<ApiMarket[]>([...own]);
  const fields = change.error instanceof ApiError ? change.error.fields : {};

  function submit(event: FormEvent) {
    event.preventDefault();
    change.mutate(
      { kind: 'create', username, password, roles, markets },
      {
        onSuccess: (o) => {
          setUsername('');
          setPassword('');
          setRoles([]);
          setMarkets([...own]);
          onDone(o);
        },
      },
    );
  }

  return (
    <form className="panel" onSubmit={submit} aria-label={t('operators.create')}>
      <h2>{t('operators.create')}</h2>
      <div className="form-row">
        <label>
          {t('operators.username')}{' '}
          <input value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="off" aria-invalid={Boolean(fields.username)} />
        </label>
        {fields.username && <p className="field-error">{fields.username}</p>}
        <label>
          {t('operators.initialPassword')}{' '}
          <input type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} aria-invalid={Boolean(fields.password)} />
        </label>
        {fields.password && <p className="field-error">{fields.password}</p>}
      </div>
      <RoleBoxes value={roles} onChange={setRoles} name={t('operators.newOperator')} />
      {fields.roles && <p className="field-error">{fields.roles}</p>}
      <p className="muted">{t('operators.marketsHint')}</p>
      <MarketBoxes value={markets} onChange={setMarkets} name={t('operators.newOperator')} />
      {fields.markets && <p className="field-error">{fields.markets}</p>}
      <button type="submit" className="button button--primary" disabled={change.isPending}>
        {t('operators.createButton')}
      </button>
    </form>
  );
}
