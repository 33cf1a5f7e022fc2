import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { act, fireEvent, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, renderSite } from '@/test/render-site';

function stubFetch(answer: () => Promise<Response>) {
  const fetchMock = vi.fn(answer);
  vi.stubGlobal('fetch', fetchMock);
  return fetchMock;
}

async function openContact(url: string, tabName: string) {
  const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
  renderSite(url);
  await user.click(screen.getByRole('tab', { name: tabName }));
  return user;
}

const toast = () => screen.queryByTestId('toast');

const PRIVACY_EN =
  "We use your name, phone number and message only to answer you, and your device's network address only to stop abuse. We delete them a year after we answer.";
const PRIVACY_ID =
  'Nama, nomor telepon, dan pesan Anda hanya kami gunakan untuk menjawab Anda, dan alamat jaringan perangkat Anda hanya untuk mencegah penyalahgunaan. Data tersebut kami hapus satu tahun setelah kami menjawab.';

/** The field only programs fill, found the way a program finds it: by its name in the page. */
function trapField(): HTMLInputElement {
  const field = document.querySelector<HTMLInputElement>('form input[name="website"]');
  if (!field) throw new Error('no website field in the contact form');
  return field;
}

function sentBody(fetchMock: ReturnType<typeof stubFetch>): Record<string, unknown> {
  const [, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
  return JSON.parse(init.body as string) as Record<string, unknown>;
}

describe('contact form (India, English)', () => {
  beforeEach(() => vi.useFakeTimers({ shouldAdvanceTime: true }));
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('refuses empty and whitespace-only fields for exactly 1 second and sends nothing', async () => {
    const fetchMock = stubFetch(async () => jsonResponse(201, { code: 0, msg: 'ok', data: { id: '1', createdAt: 1 } }));
    const user = await openContact('/?lang=1', 'Contact Us');
    await user.type(screen.getByLabelText('Name'), 'Asha');
    await user.type(screen.getByLabelText('Telephone'), '   ');
    await user.type(screen.getByLabelText('Message'), 'Hello');
    // From here the clock moves only when told, to check the toast's 1 s to the millisecond.
    vi.useFakeTimers();
    act(() => {
      fireEvent.click(screen.getByRole('button', { name: 'Send Message' }));
    });

    expect(screen.getByRole('status')).toHaveTextContent('Please fill in your name, phone and message.');
    expect(toast()).toHaveTextContent(/^Please fill in your name, phone and message.$/);
    act(() => vi.advanceTimersByTime(999));
    expect(toast()).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(1));
    expect(toast()).not.toBeInTheDocument();

    expect(fetchMock).not.toHaveBeenCalled();
    expect(screen.getByLabelText('Name')).toHaveValue('Asha');
    expect(screen.getByLabelText('Message')).toHaveValue('Hello');
  });

  it('refuses a form with every field empty', async () => {
    const fetchMock = stubFetch(async () => jsonResponse(201, {}));
    const user = await openContact('/?lang=1', 'Contact Us');
    await user.click(screen.getByRole('button', { name: 'Send Message' }));
    expect(toast()).toHaveTextContent('Please fill in your name, phone and message.');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('posts the message as JSON, confirms for 1 second and clears the fields', async () => {
    const fetchMock = stubFetch(async () => jsonResponse(201, { code: 0, msg: 'ok', data: { id: 'm-1', createdAt: 1763820000000 } }));
    const user = await openContact('/?lang=1&sessionId=abc', 'Contact Us');
    await user.type(screen.getByLabelText('Name'), '  Asha Rao ');
    await user.type(screen.getByLabelText('Telephone'), '98765 43210');
    await user.type(screen.getByLabelText('Message'), 'Please call me.');
    await user.click(screen.getByRole('button', { name: 'Send Message' }));

    expect(await screen.findByTestId('toast')).toHaveTextContent(/^Sent — thank you!$/);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/v1/site/contact-messages');
    expect(init.method).toBe('POST');
    expect(JSON.parse(init.body as string)).toEqual({ name: 'Asha Rao', telephone: '98765 43210', message: 'Please call me.', market: 'IN' });
    expect(init.headers).toMatchObject({
      'Content-Type': 'application/json',
      'X-Requested-With': 'XMLHttpRequest',
      'Accept-Language': 'en-IN',
      'X-App-Channel': '',
    });
    // The URL's sessionId is never a credential (security report N2).
    expect(init.headers).not.toHaveProperty('X-Session-Id');
    expect(screen.getByLabelText('Name')).toHaveValue('');
    expect(screen.getByLabelText('Telephone')).toHaveValue('');
    expect(screen.getByLabelText('Message')).toHaveValue('');

    act(() => vi.advanceTimersByTime(1000));
    expect(toast()).not.toBeInTheDocument();
  });

  it('shows the server message when it refuses, and keeps the fields', async () => {
    stubFetch(async () => jsonResponse(429, { code: 'rate_limited', msg: 'Too many messages. Try again in a minute.', data: null }));
    const user = await openContact('/?lang=1', 'Contact Us');
    await user.type(screen.getByLabelText('Name'), 'Asha');
    await user.type(screen.getByLabelText('Telephone'), '12');
    await user.type(screen.getByLabelText('Message'), 'Hi');
    await user.click(screen.getByRole('button', { name: 'Send Message' }));

    expect(await screen.findByTestId('toast')).toHaveTextContent('Too many messages. Try again in a minute.');
    expect(screen.getByLabelText('Name')).toHaveValue('Asha');
    expect(screen.getByLabelText('Telephone')).toHaveValue('12');
    expect(screen.getByLabelText('Message')).toHaveValue('Hi');
  });

  it('says so when the server cannot be reached, and keeps the fields', async () => {
    stubFetch(async () => {
      throw new TypeError('Failed to fetch');
    });
    const user = await openContact('/?lang=1', 'Contact Us');
    await user.type(screen.getByLabelText('Name'), 'Asha');
    await user.type(screen.getByLabelText('Telephone'), 'call me');
    await user.type(screen.getByLabelText('Message'), 'Hi');
    await user.click(screen.getByRole('button', { name: 'Send Message' }));

    expect(await screen.findByTestId('toast')).toHaveTextContent('We could not reach the server. Check your connection and try again.');
    expect(screen.getByLabelText('Telephone')).toHaveValue('call me');
  });

  it('says under the send button what the details are used for and when they are deleted', async () => {
    await openContact('/?lang=1', 'Contact Us');
    const notice = screen.getByText(PRIVACY_EN);
    const button = screen.getByRole('button', { name: 'Send Message' });
    expect(button.compareDocumentPosition(notice) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(button).toHaveAccessibleDescription(PRIVACY_EN);
  });

  it('has a field for programs that people never meet, and sends no website when it is empty', async () => {
    const fetchMock = stubFetch(async () => jsonResponse(201, { code: 0, msg: 'ok', data: { id: 'm-3', createdAt: 1 } }));
    const user = await openContact('/?lang=1', 'Contact Us');

    const field = trapField();
    expect(field).toHaveAttribute('type', 'text');
    expect(field).toHaveAttribute('tabindex', '-1');
    expect(field).toHaveAttribute('autocomplete', 'off');
    expect(field.labels?.[0]).toHaveTextContent(/^Leave this empty$/);
    const wrapper = field.closest('[aria-hidden="true"]');
    expect(wrapper).not.toBeNull();
    // Out of the accessibility tree: people, and their screen readers, meet only the three fields.
    expect(screen.queryByRole('textbox', { name: 'Leave this empty' })).not.toBeInTheDocument();
    expect(screen.getAllByRole('textbox').map((box) => box.getAttribute('name'))).toEqual(['name', 'telephone', 'message']);
    expect(screen.getByRole('textbox', { name: 'Leave this empty', hidden: true })).toBe(field);

    // Off-screen by the site's CSS, not display:none (programs skip what is not displayed).
    const style = document.createElement('style');
    style.textContent = readFileSync(resolve(__dirname, '../site.css'), 'utf8');
    document.head.append(style);
    try {
      const shown = getComputedStyle(wrapper!);
      expect(shown.position).toBe('absolute');
      expect(shown.left).toBe('-10000px');
      expect(shown.display).not.toBe('none');
      expect(shown.visibility).not.toBe('hidden');
    } finally {
      style.remove();
    }

    await user.tab();
    expect(screen.getByLabelText('Name')).toHaveFocus();
    await user.type(screen.getByLabelText('Name'), 'Asha');
    await user.tab();
    expect(screen.getByLabelText('Telephone')).toHaveFocus();
    await user.type(screen.getByLabelText('Telephone'), '98765 43210');
    await user.tab();
    expect(screen.getByLabelText('Message')).toHaveFocus();
    await user.type(screen.getByLabelText('Message'), 'Hi');
    await user.tab();
    // Tab goes from the message straight to the button, past the hidden field.
    expect(screen.getByRole('button', { name: 'Send Message' })).toHaveFocus();
    await user.keyboard('{Enter}');

    expect(await screen.findByTestId('toast')).toHaveTextContent(/^Sent — thank you!$/);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    const body = sentBody(fetchMock);
    expect(body.website ?? '').toBe('');
    expect(body).toEqual({ name: 'Asha', telephone: '98765 43210', message: 'Hi', market: 'IN' });
  });

  it('sends the hidden field when a program fills it, set straight in the page', async () => {
    const fetchMock = stubFetch(async () => jsonResponse(201, { code: 0, msg: 'ok', data: { id: 'm-4', createdAt: 1 } }));
    const user = await openContact('/?lang=1', 'Contact Us');
    // No typing and no input event: the value a script sets on the element.
    trapField().value = 'https://spam.example';
    await user.type(screen.getByLabelText('Name'), 'Bot');
    await user.type(screen.getByLabelText('Telephone'), '1');
    await user.type(screen.getByLabelText('Message'), 'Buy now');
    await user.click(screen.getByRole('button', { name: 'Send Message' }));

    // The server answers it like any message; the page acts as for any message.
    expect(await screen.findByTestId('toast')).toHaveTextContent(/^Sent — thank you!$/);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(sentBody(fetchMock)).toEqual({ name: 'Bot', telephone: '1', message: 'Buy now', market: 'IN', website: 'https://spam.example' });
  });
});

describe('contact form (Indonesia, Indonesian)', () => {
  beforeEach(() => vi.useFakeTimers({ shouldAdvanceTime: true }));
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('uses the Indonesian texts and Accept-Language', async () => {
    const fetchMock = stubFetch(async () => jsonResponse(201, { code: 0, msg: 'ok', data: { id: 'm-2', createdAt: 1 } }));
    const user = await openContact('/', 'Hubungi Kami');
    await user.click(screen.getByRole('button', { name: 'Kirim Pesan' }));
    expect(toast()).toHaveTextContent(/^Mohon isi nama, nomor telepon, dan pesan Anda.$/);
    expect(fetchMock).not.toHaveBeenCalled();

    await user.type(screen.getByLabelText('Nama'), 'Budi');
    await user.type(screen.getByLabelText('Telepon'), '0812 3456 7890');
    await user.type(screen.getByLabelText('Pesan'), 'Mohon hubungi saya.');
    await user.click(screen.getByRole('button', { name: 'Kirim Pesan' }));
    await vi.waitFor(() => expect(toast()).toHaveTextContent(/^Terkirim — terima kasih!$/));
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/v1/site/contact-messages');
    expect(JSON.parse(init.body as string)).toEqual({ name: 'Budi', telephone: '0812 3456 7890', message: 'Mohon hubungi saya.', market: 'ID' });
    expect(init.headers).toMatchObject({ 'Accept-Language': 'id-ID' });
  });

  it('says in Indonesian what the details are used for, and labels the hidden field in Indonesian', async () => {
    await openContact('/', 'Hubungi Kami');
    expect(screen.getByText(PRIVACY_ID)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Kirim Pesan' })).toHaveAccessibleDescription(PRIVACY_ID);
    expect(screen.queryByText(PRIVACY_EN)).not.toBeInTheDocument();
    expect(trapField().labels?.[0]).toHaveTextContent(/^Kosongkan kolom ini$/);
    expect(screen.queryByRole('textbox', { name: 'Kosongkan kolom ini' })).not.toBeInTheDocument();
  });

  it('falls back to the Indonesian failure text when the server gives no message', async () => {
    stubFetch(async () => new Response('oops', { status: 500 }));
    const user = await openContact('/', 'Hubungi Kami');
    await user.type(screen.getByLabelText('Nama'), 'Budi');
    await user.type(screen.getByLabelText('Telepon'), '0812');
    await user.type(screen.getByLabelText('Pesan'), 'Halo');
    await user.click(screen.getByRole('button', { name: 'Kirim Pesan' }));
    expect(await screen.findByTestId('toast')).toHaveTextContent('Pesan Anda gagal dikirim. Silakan coba lagi.');
    expect(screen.getByLabelText('Nama')).toHaveValue('Budi');
  });
});
