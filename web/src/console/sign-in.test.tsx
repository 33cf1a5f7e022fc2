import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { CSRF, OPERATORS, fakeConsoleApi, ok, refusal, renderConsole } from '@/test/render-console';
import { CSRF_STORAGE_KEY } from './csrf';
import { QUEUE_IN } from './fixtures.test-data';

async function signIn(username = 'rita', password = 'correct horse battery') {
  const user = userEvent.setup();
  await user.type(await screen.findByLabelText('Username'), username);
  await user.type(screen.getByLabelText('Password'), password);
  await user.click(screen.getByRole('button', { name: 'Sign in' }));
  return user;
}

describe('console sign-in', () => {
  it('sends a page that needs a session to the sign-in, then back to it with the CSRF token kept', async () => {
    const api = fakeConsoleApi({ handlers: { 'GET /api/v1/console/applications': () => ok(QUEUE_IN) } });
    renderConsole('/console/applications');
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/console/login');

    await signIn();
    expect(await screen.findByRole('heading', { level: 1, name: 'Review queue' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/console/applications');
    expect(api.callsTo('POST', '/api/v1/console/login')[0]!.body).toEqual({ username: 'rita', password: 'correct horse battery' });
    expect(window.localStorage.getItem(CSRF_STORAGE_KEY)).toBe(CSRF);
  });

  it('asks for both fields before sending anything', async () => {
    const api = fakeConsoleApi();
    renderConsole('/console/login');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Sign in' }));
    expect(screen.getByText('Enter your username.')).toBeInTheDocument();
    expect(screen.getByText('Enter your password.')).toBeInTheDocument();
    expect(screen.getByLabelText('Username')).toHaveAttribute('aria-invalid', 'true');
    expect(api.callsTo('POST', '/api/v1/console/login')).toHaveLength(0);
  });

  it('says plainly when the username or password is wrong, and stays on the sign-in', async () => {
    fakeConsoleApi({
      handlers: { 'POST /api/v1/console/login': () => refusal(401, 'credentials_invalid', 'Wrong username or password.') },
    });
    renderConsole('/console/login');
    await signIn('rita', 'not the password');
    expect(await screen.findByRole('alert')).toHaveTextContent('Wrong username or password.');
    expect(window.location.pathname).toBe('/console/login');
    expect(window.localStorage.getItem(CSRF_STORAGE_KEY)).toBeNull();
  });

  it('tells a locked operator when to try again', async () => {
    fakeConsoleApi({
      handlers: {
        'POST /api/v1/console/login': () =>
          refusal(429, 'operator_locked', 'Too many wrong passwords.', { headers: { 'Retry-After': '840' } }),
      },
    });
    renderConsole('/console/login');
    await signIn();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(/for this account from here\. Try again after .+ \(in 14 minutes\), or ask an admin/);
  });

  it('tells a rate-limited address when to try again', async () => {
    fakeConsoleApi({
      handlers: {
        'POST /api/v1/console/login': () => refusal(429, 'rate_limited', 'Too many requests.', { headers: { 'Retry-After': '30' } }),
      },
    });
    renderConsole('/console/login');
    await signIn();
    expect(await screen.findByRole('alert')).toHaveTextContent(/Too many sign-in attempts from this address\. Try again after .+ \(in 1 minute\)\./);
  });

  it('shows the server’s field errors under the fields', async () => {
    fakeConsoleApi({
      handlers: {
        'POST /api/v1/console/login': () =>
          refusal(422, 'validation_failed', 'Some fields need your attention.', { fields: { username: 'This field is required.' } }),
      },
    });
    renderConsole('/console/login');
    await signIn('   x', 'pw');
    expect(await screen.findByText('This field is required.')).toBeInTheDocument();
    expect(screen.getByLabelText('Username')).toHaveAttribute('aria-invalid', 'true');
  });

  it('opens the first section of a signed-in operator straight away', async () => {
    fakeConsoleApi({ operator: OPERATORS.adminOnly, signedIn: true, handlers: { 'GET /api/v1/console/audit': () => ok({ entries: [], next: null }) } });
    renderConsole('/console/');
    expect(await screen.findByRole('heading', { level: 1, name: 'Audit trail' })).toBeInTheDocument();
    await waitFor(() => expect(window.location.pathname).toBe('/console/audit'));
  });

  it('goes back to the sign-in when the session has ended on the server (401)', async () => {
    fakeConsoleApi({ signedIn: true, handlers: { 'GET /api/v1/console/applications': () => refusal(401, 'unauthorized', 'Please log in again.') } });
    // The token is there but /me still answers: the first read that gets a 401 signs the page out.
    window.localStorage.setItem(CSRF_STORAGE_KEY, CSRF);
    renderConsole('/console/applications');
    expect(await screen.findByRole('heading', { level: 1, name: 'Sign in' })).toBeInTheDocument();
    expect(window.localStorage.getItem(CSRF_STORAGE_KEY)).toBeNull();
  });
});
