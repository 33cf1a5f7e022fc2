import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEV_SETTINGS_BY_MARKET } from '@/shared/settings/settings';
import { jsonResponse, renderSite } from '@/test/render-site';

afterEach(() => vi.unstubAllGlobals());

describe('the site as a way into the app', () => {
  it.each([
    ['India', '/?lang=1', 'Apply now', 'Log in', '/app/login?lang=1', '/app/login?lang=1'],
    ['Indonesia', '/', 'Ajukan sekarang', 'Masuk', '/app/login?lang=0', '/app/login?lang=0'],
    // A visitor who switched to Indonesia keeps it explicitly, even if the app remembers India from earlier.
    ['Indonesia after India', '/?lang=0', 'Ajukan sekarang', 'Masuk', '/app/login?lang=0', '/app/login?lang=0'],
  ])('%s: Apply and Log in open the app in the visitor’s market', (_name, url, apply, login, applyHref, loginHref) => {
    renderSite(url);
    expect(screen.getByRole('link', { name: apply })).toHaveAttribute('href', applyHref);
    const header = screen.getByRole('banner');
    expect(within(header).getByRole('link', { name: login })).toHaveAttribute('href', loginHref);
    expect(within(screen.getByRole('region', { name: /Instant loans|Pinjaman cepat/ })).getByRole('link', { name: login })).toHaveAttribute('href', loginHref);
  });

  it('shows the claims from the settings, and none once an operator empties them', () => {
    const { unmount } = renderSite('/?lang=1');
    expect(screen.getByText('Money in your bank account within 2 hours.')).toBeInTheDocument();
    expect(screen.getByText('Trusted by 3 million users.')).toBeInTheDocument();
    unmount();
    renderSite('/?lang=1', { ...DEV_SETTINGS_BY_MARKET.in, payoutClaim: '', usersClaim: 'Loved by borrowers.' });
    expect(screen.queryByText(/within 2 hours/)).toBeNull();
    expect(screen.queryByText(/3 million/)).toBeNull();
    expect(screen.getByText('Loved by borrowers.')).toBeInTheDocument();
    const facts = within(screen.getByRole('region', { name: /Instant loans/ })).getAllByRole('listitem');
    // The emptied claim's item is still in the page (the prerendered HTML has it) but shows nothing.
    expect(facts.filter((li) => li.textContent === '')).toHaveLength(1);
  });

  it('marks each missing field of the contact form where it is, with the toast, and says when we reply', async () => {
    const fetchMock = vi.fn(async () => jsonResponse(201, { code: 0, msg: 'ok', data: { id: '1', createdAt: 1 } }));
    vi.stubGlobal('fetch', fetchMock);
    const user = userEvent.setup();
    renderSite('/?lang=1');
    await user.click(screen.getByRole('tab', { name: 'Contact Us' }));
    expect(screen.getByText(/We reply within one working day/)).toBeInTheDocument();
    await user.type(screen.getByLabelText('Name'), 'Asha');
    await user.click(screen.getByRole('button', { name: 'Send Message' }));

    expect(screen.getByRole('status')).toHaveTextContent('Please fill in your name, phone and message.');
    const telephone = screen.getByLabelText('Telephone');
    expect(telephone).toHaveAttribute('aria-invalid', 'true');
    expect(telephone).toHaveAccessibleDescription('Please fill in your telephone.');
    expect(screen.getByLabelText('Message')).toHaveAccessibleDescription('Please fill in your message.');
    expect(screen.getByLabelText('Name')).not.toHaveAttribute('aria-invalid');
    expect(telephone).toHaveFocus();
    expect(fetchMock).not.toHaveBeenCalled();

    // Typing into a marked field clears its mark; the other stays until it is filled too.
    await user.type(telephone, '98450 01234');
    expect(telephone).not.toHaveAttribute('aria-invalid');
    expect(screen.getByLabelText('Message')).toHaveAttribute('aria-invalid', 'true');
  });

  it('marks a field the server refuses, in its words', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () =>
        jsonResponse(422, { code: 'validation_failed', msg: 'Some fields need your attention.', data: null, fields: { name: 'At most 100 characters.' } }),
      ),
    );
    const user = userEvent.setup();
    renderSite('/?lang=1');
    await user.click(screen.getByRole('tab', { name: 'Contact Us' }));
    await user.type(screen.getByLabelText('Name'), 'Asha');
    await user.type(screen.getByLabelText('Telephone'), '98450 01234');
    await user.type(screen.getByLabelText('Message'), 'Hello');
    await user.click(screen.getByRole('button', { name: 'Send Message' }));
    expect(await screen.findByText('At most 100 characters.')).toBeInTheDocument();
    expect(screen.getByLabelText('Name')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('Name')).toHaveValue('Asha');
  });
});
