import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { errorText } from '@/shared/api/error-text';
import { ApiError } from '@/shared/api/http';
import { useChangeOwnPassword, useSignOut } from '../api/session';
import type { Operator } from '../api/types';
import { consolePaths } from '../paths';
import { MIN_PASSWORD_CHARS } from './operators';

type Field = 'currentPassword' | 'password' | 'repeat';

/**
 * Right after signing in with a password an admin set (a new operator's, or after a reset): the operator chooses
 * their own before anything else, since the server refuses every other request until then (403
 * `password_change_required`). Current password, the new one twice; the server's rules and words for each field.
 */
export function OwnPasswordScreen({ operator }: { operator: Operator }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const change = useChangeOwnPassword();
  const signOut = useSignOut();
  const [values, setValues] = useState<Record<Field, string>>({ currentPassword: '', password: '', repeat: '' });
  const [local, setLocal] = useState<Partial<Record<Field, string>>>({});

  const serverFields = change.error instanceof ApiError ? change.error.fields : {};
  const fieldError = (field: Field) => local[field] ?? (field === 'repeat' ? undefined : serverFields[field]);
  const refusal = change.error && Object.keys(serverFields).length === 0 ? errorText(change.error, t) : null;

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const next: Partial<Record<Field, string>> = {};
    if (!values.currentPassword) next.currentPassword = t('ownPassword.currentRequired');
    if (values.password.length < MIN_PASSWORD_CHARS) next.password = t('ownPassword.tooShort', { min: MIN_PASSWORD_CHARS });
    else if (values.repeat !== values.password) next.repeat = t('ownPassword.differ');
    setLocal(next);
    if (Object.keys(next).length > 0) return;
    change.mutate({ currentPassword: values.currentPassword, password: values.password });
  };

  const onSignOut = () =>
    signOut.mutate(undefined, { onSettled: () => void navigate(consolePaths.signIn, { replace: true }) });

  const input = (field: Field, autoComplete: string) => (
    <div className="field" key={field}>
      <label htmlFor={`own-${field}`}>{t(`ownPassword.${field}`)}</label>
      <input
        id={`own-${field}`}
        name={field}
        type="password"
        autoComplete={autoComplete}
        value={values[field]}
        aria-invalid={fieldError(field) ? true : undefined}
        aria-describedby={fieldError(field) ? `own-${field}-error` : field === 'password' ? 'own-password-hint' : undefined}
        onChange={(event) => setValues((v) => ({ ...v, [field]: event.target.value }))}
      />
      {field === 'password' && !fieldError(field) && (
        <p className="muted" id="own-password-hint">
          {t('ownPassword.hint', { min: MIN_PASSWORD_CHARS })}
        </p>
      )}
      {fieldError(field) && (
        <p className="field-error" id={`own-${field}-error`}>
          {fieldError(field)}
        </p>
      )}
    </div>
  );

  return (
    <main className="sign-in">
      <form className="panel sign-in-form" onSubmit={onSubmit} noValidate aria-labelledby="own-password-title">
        <p className="console-brand">{t('brand')}</p>
        <h1 id="own-password-title">{t('ownPassword.title')}</h1>
        <p>{t('ownPassword.intro', { username: operator.username })}</p>
        {refusal && (
          <p role="alert" className="notice notice--error">
            {refusal}
          </p>
        )}
        {input('currentPassword', 'current-password')}
        {input('password', 'new-password')}
        {input('repeat', 'new-password')}
        <button type="submit" className="button button--primary" disabled={change.isPending}>
          {change.isPending ? t('ownPassword.saving') : t('ownPassword.submit')}
        </button>{' '}
        <button type="button" className="button button--quiet" onClick={onSignOut} disabled={signOut.isPending}>
          {t('layout.signOut')}
        </button>
      </form>
    </main>
  );
}
