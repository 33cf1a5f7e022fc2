import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useLocation, useNavigate } from 'react-router';
import type { TFunction } from 'i18next';
import { errorText } from '@/shared/api/error-text';
import { ApiError } from '@/shared/api/http';
import { useSignIn } from '../api/session';
import { useCsrf } from '../csrf-context';
import { dateTime } from '../format';
import { queryKeys } from '../api/query-keys';

type Field = 'username' | 'password';

/** Where to go after signing in: back to the page that asked, else the first section. */
function returnPath(state: unknown): string {
  const from = (state as { from?: unknown } | null)?.from;
  return typeof from === 'string' && from.startsWith('/') && !from.startsWith('/login') ? from : '/';
}

/** The refusal in plain words: a wrong password, a locked account or too many tries, with when to try again. */
function refusalText(error: ApiError, t: TFunction, now: number): string {
  const retry = error.retryAfterSeconds;
  const at = retry === null ? null : dateTime(now + retry * 1000);
  const minutes = retry === null ? 0 : Math.max(1, Math.ceil(retry / 60));
  if (error.code === 'operator_locked') return at ? t('signIn.locked', { at, count: minutes }) : errorText(error, t);
  if (error.code === 'rate_limited') return at ? t('signIn.rateLimited', { at, count: minutes }) : errorText(error, t);
  return errorText(error, t);
}

export function SignInScreen() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const csrf = useCsrf();
  const queryClient = useQueryClient();
  const signIn = useSignIn();
  const [values, setValues] = useState<Record<Field, string>>({ username: '', password: '' });
  const [missing, setMissing] = useState<Partial<Record<Field, string>>>({});

  // Already signed in (this tab or another): straight on.
  if (csrf.get() && queryClient.getQueryData(queryKeys.me) && !signIn.isPending) {
    return <Navigate to={returnPath(location.state)} replace />;
  }

  const serverFields = signIn.error instanceof ApiError ? signIn.error.fields : {};
  const fieldError = (field: Field) => missing[field] ?? serverFields[field];

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const next: Partial<Record<Field, string>> = {};
    if (!values.username.trim()) next.username = t('signIn.usernameRequired');
    if (!values.password) next.password = t('signIn.passwordRequired');
    setMissing(next);
    if (Object.keys(next).length > 0) return;
    signIn.mutate(
      { username: values.username.trim(), password: values.password },
      { onSuccess: () => void navigate(returnPath(location.state), { replace: true }) },
    );
  };

  // `Retry-After` counts from the answer, which came a moment after the request was sent.
  const refusal =
    signIn.error && Object.keys(serverFields).length === 0 ? refusalText(signIn.error, t, signIn.submittedAt) : null;

  return (
    <main className="sign-in">
      <form className="panel sign-in-form" onSubmit={onSubmit} noValidate aria-labelledby="sign-in-title">
        <p className="console-brand">{t('brand')}</p>
        <h1 id="sign-in-title">{t('signIn.title')}</h1>
        {refusal && (
          <p role="alert" className="notice notice--error">
            {refusal}
          </p>
        )}
        {(['username', 'password'] as const).map((field) => (
          <div className="field" key={field}>
            <label htmlFor={`sign-in-${field}`}>{t(`signIn.${field}`)}</label>
            <input
              id={`sign-in-${field}`}
              name={field}
              type={field === 'password' ? 'password' : 'text'}
              autoComplete={field === 'password' ? 'current-password' : 'username'}
              autoCapitalize="none"
              spellCheck={false}
              value={values[field]}
              aria-invalid={fieldError(field) ? true : undefined}
              aria-describedby={fieldError(field) ? `sign-in-${field}-error` : undefined}
              onChange={(event) => setValues((v) => ({ ...v, [field]: event.target.value }))}
            />
            {fieldError(field) && (
              <p className="field-error" id={`sign-in-${field}-error`}>
                {fieldError(field)}
              </p>
            )}
          </div>
        ))}
        <button type="submit" className="button button--primary" disabled={signIn.isPending}>
          {signIn.isPending ? t('signIn.submitting') : t('signIn.submit')}
        </button>
      </form>
    </main>
  );
}
