import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { OPERATORS, fakeConsoleApi, ok, refusal, renderConsole } from '@/test/render-console';

const SUMMARY = {
  ticketNo: 'CP-261125-AB12CD',
  market: 'IN',
  category: 'charges',
  categoryLabel: 'Fees and charges',
  orderNo: null,
  status: 'open',
  createdAt: Date.UTC(2026, 10, 25, 6),
  updatedAt: Date.UTC(2026, 10, 25, 6),
  receivedOn: '2026-10-20',
  resolveBy: '2026-11-19',
  overdue: true,
  score: null,
  assigneeId: null,
  assigneeName: null,
};
const DETAIL = {
  ...SUMMARY,
  lang: 'en',
  messages: [{ id: 'm-1', author: 'borrower', body: 'I was charged twice.', createdAt: Date.UTC(2026, 10, 25, 6) }],
  images: [],
  escalation: { name: 'RBI CMS', url: 'https://cms.rbi.org.in', phone: '14448' },
  scoreComment: null,
  phoneMasked: '+91 ******1006',
};

/** A contact message waiting to be handled. */
const WAITING = { id: 'm1', name: 'Sari', telephone: '0812', message: 'Email me.', email: 'sari@example.com', company: null, createdAt: Date.UTC(2026, 10, 25), replyChannel: 'email', replyTo: 'sari@example.com', handled: false, handledAt: null, handledBy: null, market: null };

/** 2,000 characters without a space: a pasted link. */
const UNBROKEN = `https://example.com/${'a'.repeat(1980)}`;

/** Runs `check` with the console's stylesheet applied to the page (jsdom computes the declared styles, not a layout). */
function withConsoleCss(check: () => void) {
  const style = document.createElement('style');
  style.textContent = readFileSync(resolve(__dirname, 'console.css'), 'utf8');
  document.head.append(style);
  try {
    check();
  } finally {
    style.remove();
  }
}

/** A page of the queue as the server answers it. */
function queuePage(items: object[], total = items.length, page = 1) {
  return { items, total, page, pageSize: 50 };
}

describe('support console', () => {
  it('lists complaints with their age and flags one past the deadline', async () => {
    fakeConsoleApi({
      operator: OPERATORS.support,
      signedIn: true,
      handlers: { 'GET /api/v1/console/complaints': () => ok(queuePage([{ ...SUMMARY, ageSeconds: 7200 }])) },
    });
    renderConsole('/console/complaints');
    expect(await screen.findByRole('link', { name: 'CP-261125-AB12CD' })).toHaveAttribute('href', '/console/complaints/CP-261125-AB12CD');
    expect(screen.getByText('Past the deadline')).toBeInTheDocument();
  });

  it('pages through a queue longer than a page, and a page past the end shows the last one', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.support,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/complaints': (call) => {
          const page = Number(call.query.get('page'));
          if (page === 3) return ok(queuePage([], 60, 3));
          return ok(queuePage([{ ...SUMMARY, ticketNo: `CP-261125-PAGE0${page}`, ageSeconds: 60 }], 60, page));
        },
      },
    });
    const user = userEvent.setup();
    renderConsole('/console/complaints?page=3');
    // 60 complaints are two pages: page 3 is past the end, so page 2 shows instead of "no complaints".
    expect(await screen.findByRole('link', { name: 'CP-261125-PAGE02' })).toBeInTheDocument();
    expect(screen.queryByText('No complaints waiting.')).toBeNull();
    expect(screen.getByText('Page 2 of 2')).toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: '← Previous page' }));
    expect(await screen.findByRole('link', { name: 'CP-261125-PAGE01' })).toBeInTheDocument();
    expect(api.callsTo('GET', '/api/v1/console/complaints').map((c) => c.query.get('page'))).toEqual(['3', '2', '1']);
  });

  it('replies to a complaint with the CSRF token and shows the answer', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.support,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/complaints/CP-261125-AB12CD': () => ok(DETAIL),
        'POST /api/v1/console/complaints/CP-261125-AB12CD/reply': () =>
          ok({ ...DETAIL, status: 'answered', messages: [...DETAIL.messages, { id: 'm-2', author: 'support', body: 'Refunded.', createdAt: Date.UTC(2026, 10, 25, 8) }] }),
      },
    });
    const user = userEvent.setup();
    renderConsole('/console/complaints/CP-261125-AB12CD');
    expect(await screen.findByText('I was charged twice.')).toBeInTheDocument();
    expect(screen.getByText('+91 ******1006')).toBeInTheDocument();
    // Unanswered, it cannot be closed: a closed complaint takes no reply.
    const close = screen.getByRole('button', { name: 'Close complaint' });
    expect(close).toBeDisabled();
    expect(close).toHaveAccessibleDescription("The borrower's last message has no answer yet: reply before closing the complaint.");
    await user.type(screen.getByLabelText('Reply to the borrower'), 'Refunded.');
    await user.click(screen.getByRole('button', { name: 'Send reply' }));
    expect(await screen.findByText('Reply sent: the borrower reads it in the app.')).toBeInTheDocument();
    expect(screen.getByText('Refunded.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Close complaint' })).toBeEnabled();
    // It names the last message read, so a message the borrower sent meanwhile keeps the complaint open.
    expect(api.callsTo('POST', '/api/v1/console/complaints/CP-261125-AB12CD/reply')[0]?.body).toEqual({
      body: 'Refunded.',
      seenMessageId: DETAIL.messages.at(-1)!.id,
    });
  });

  it('says so when the borrower wrote while the reply was being written, and the complaint stays open', async () => {
    const newer = { id: 'm-3', author: 'borrower', body: 'Also the late fee.', createdAt: Date.UTC(2026, 10, 25, 7) };
    fakeConsoleApi({
      operator: OPERATORS.support,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/complaints/CP-261125-AB12CD': () => ok(DETAIL),
        'POST /api/v1/console/complaints/CP-261125-AB12CD/reply': () =>
          ok({ ...DETAIL, status: 'open', messages: [...DETAIL.messages, newer, { id: 'm-4', author: 'support', body: 'Refunded.', createdAt: Date.UTC(2026, 10, 25, 8) }] }),
      },
    });
    const user = userEvent.setup();
    renderConsole('/console/complaints/CP-261125-AB12CD');
    await user.type(await screen.findByLabelText('Reply to the borrower'), 'Refunded.');
    await user.click(screen.getByRole('button', { name: 'Send reply' }));
    expect(await screen.findByText(/the borrower wrote again while you were writing it/)).toHaveClass('notice--warning');
    expect(screen.getByText('Also the late fee.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Close complaint' })).toBeDisabled();
  });

  it('wraps a long unbroken message of the conversation inside its column', async () => {
    fakeConsoleApi({
      operator: OPERATORS.support,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/complaints/CP-261125-AB12CD': () => ok({ ...DETAIL, messages: [{ ...DETAIL.messages[0], body: UNBROKEN }] }),
      },
    });
    renderConsole('/console/complaints/CP-261125-AB12CD');
    const body = await screen.findByText(UNBROKEN);
    withConsoleCss(() => expect(getComputedStyle(body).overflowWrap).toBe('anywhere'));
  });

  it('marks a contact message handled and shows how to reply', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.adminOnly,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/contact-messages': () =>
          ok(queuePage([
            { id: 'm1', name: 'Sari', telephone: '0812', message: 'Email me.', email: 'sari@example.com', company: null, createdAt: Date.UTC(2026, 10, 25), replyChannel: 'email', replyTo: 'sari@example.com', handled: false, handledAt: null, handledBy: null, market: null },
          ])),
        'POST /api/v1/console/contact-messages/m1/handled': () => ok({ id: 'm1', markedNow: true }),
      },
    });
    const user = userEvent.setup();
    renderConsole('/console/contact-messages');
    expect(await screen.findByRole('link', { name: 'sari@example.com' })).toHaveAttribute('href', 'mailto:sari@example.com');
    await user.click(screen.getByRole('button', { name: 'Mark handled' }));
    expect(api.callsTo('POST', '/api/v1/console/contact-messages/m1/handled')).toHaveLength(1);
  });

  it('says beside the message that it was not marked handled when the server refuses, in the server’s words', async () => {
    fakeConsoleApi({
      operator: OPERATORS.support,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/contact-messages': () => ok(queuePage([WAITING, { ...WAITING, id: 'm2', name: 'Budi' }])),
        'POST /api/v1/console/contact-messages/m1/handled': () => refusal(403, 'forbidden', 'Only support or an admin may do this.'),
      },
    });
    const user = userEvent.setup();
    renderConsole('/console/contact-messages');
    const sari = (await screen.findByText('Sari')).closest('tr') as HTMLElement;
    await user.click(within(sari).getByRole('button', { name: 'Mark handled' }));
    expect(await within(sari).findByRole('alert')).toHaveTextContent(
      'Marking the message from Sari handled failed: it is still not handled. Only support or an admin may do this.',
    );
    // Only beside that message, and the button is there to try again.
    expect(screen.getAllByRole('alert')).toHaveLength(1);
    expect(within(sari).getByRole('button', { name: 'Mark handled' })).toBeEnabled();
  });

  it('says so when marking a message handled fails on the way, without the server’s words', async () => {
    fakeConsoleApi({
      operator: OPERATORS.support,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/contact-messages': () => ok(queuePage([WAITING])),
        'POST /api/v1/console/contact-messages/m1/handled': () => Promise.reject(new TypeError('Failed to fetch')),
      },
    });
    const user = userEvent.setup();
    renderConsole('/console/contact-messages');
    await user.click(await screen.findByRole('button', { name: 'Mark handled' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Marking the message from Sari handled failed: it is still not handled. We could not reach the server. Check your connection and try again.',
    );
  });

  it('says so plainly when another operator had already marked the message handled', async () => {
    let handled = false;
    fakeConsoleApi({
      operator: OPERATORS.support,
      signedIn: true,
      handlers: {
        // Once marked, the message leaves the list of those waiting: the notice cannot stay in its row.
        'GET /api/v1/console/contact-messages': () => ok(handled ? queuePage([]) : queuePage([WAITING])),
        'POST /api/v1/console/contact-messages/m1/handled': () => {
          handled = true;
          return ok({ id: 'm1', markedNow: false });
        },
      },
    });
    const user = userEvent.setup();
    renderConsole('/console/contact-messages');
    await user.click(await screen.findByRole('button', { name: 'Mark handled' }));
    expect(await screen.findByText('No messages waiting.')).toBeInTheDocument();
    const notice = screen.getByRole('status');
    expect(notice).toHaveTextContent('Another operator had already marked the message from Sari handled.');
    expect(notice).toHaveFocus();
  });

  it('wraps a long unbroken contact message inside its column', async () => {
    fakeConsoleApi({
      operator: OPERATORS.support,
      signedIn: true,
      handlers: { 'GET /api/v1/console/contact-messages': () => ok(queuePage([{ ...WAITING, message: UNBROKEN }])) },
    });
    renderConsole('/console/contact-messages');
    const cell = await screen.findByText(UNBROKEN);
    withConsoleCss(() => expect(getComputedStyle(cell).overflowWrap).toBe('anywhere'));
  });

  it('pages through contact messages, the longest waiting first, and a page past the end shows the last one', async () => {
    const message = (n: number) => ({ id: `m${n}`, name: `Visitor ${n}`, telephone: '0812', message: 'Call me.', email: null, company: null, createdAt: Date.UTC(2026, 10, 25), replyChannel: 'phone', replyTo: '0812', handled: false, handledAt: null, handledBy: null, market: 'ID' });
    const api = fakeConsoleApi({
      operator: OPERATORS.support,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/contact-messages': (call) => {
          const page = Number(call.query.get('page'));
          // 205 waiting: five pages of 50; page 6 is past the end.
          if (page === 6) return ok(queuePage([], 205, 6));
          return ok(queuePage([message(page)], 205, page));
        },
      },
    });
    const user = userEvent.setup();
    renderConsole('/console/contact-messages?page=6');
    expect(await screen.findByText('Visitor 5')).toBeInTheDocument();
    expect(screen.getByText('Page 5 of 5')).toBeInTheDocument();
    expect(screen.getByRole('table', { name: '205 messages' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Next page →' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: '← Previous page' }));
    expect(await screen.findByText('Visitor 4')).toBeInTheDocument();
    expect(screen.getByText('Page 4 of 5')).toBeInTheDocument();
    const calls = api.callsTo('GET', '/api/v1/console/contact-messages');
    expect(calls.map((c) => c.query.get('page'))).toEqual(['6', '5', '4']);
    expect(calls.every((c) => c.query.get('status') === 'waiting' && c.query.get('pageSize') === '50')).toBe(true);
    // Another filter starts again at page 1.
    await user.selectOptions(screen.getByRole('combobox'), 'all');
    expect(await screen.findByText('Visitor 1')).toBeInTheDocument();
    expect(api.callsTo('GET', '/api/v1/console/contact-messages').at(-1)?.query.get('status')).toBe('all');
    expect(api.callsTo('GET', '/api/v1/console/contact-messages').at(-1)?.query.get('page')).toBe('1');
  });

  it('keeps the filter in the address: a link to a page of all messages opens that page of all of them', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.support,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/contact-messages': (call) => {
          const page = Number(call.query.get('page'));
          return ok(queuePage([{ id: `m${page}`, name: `Visitor ${page}`, telephone: '0812', message: 'Call me.', email: null, company: null, createdAt: Date.UTC(2026, 10, 25), replyChannel: 'phone', replyTo: '0812', handled: true, handledAt: Date.UTC(2026, 10, 26), handledBy: 'sam', market: 'ID' }], 120, page));
        },
      },
    });
    const user = userEvent.setup();
    renderConsole('/console/contact-messages?status=all&page=2');
    expect(await screen.findByText('Visitor 2')).toBeInTheDocument();
    expect(screen.getByRole('combobox')).toHaveValue('all');
    const first = api.callsTo('GET', '/api/v1/console/contact-messages')[0]!;
    expect([first.query.get('status'), first.query.get('page')]).toEqual(['all', '2']);
    // Its pager keeps the filter.
    await user.click(screen.getByRole('link', { name: 'Next page →' }));
    expect(await screen.findByText('Visitor 3')).toBeInTheDocument();
    expect(api.callsTo('GET', '/api/v1/console/contact-messages').at(-1)?.query.get('status')).toBe('all');
  });

  it('shows the market and phone numbers as E.164 tel: links', async () => {
    fakeConsoleApi({
      operator: OPERATORS.support,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/contact-messages': () =>
          ok(queuePage([
            { id: 'm1', name: 'Asha', telephone: '98450 01234', message: 'Call me.', email: null, company: null, createdAt: Date.UTC(2026, 10, 25), replyChannel: 'phone', replyTo: '98450 01234', handled: false, handledAt: null, handledBy: null, market: 'IN' },
            { id: 'm2', name: 'Budi', telephone: '0812-3456-7890', message: 'Halo.', email: null, company: null, createdAt: Date.UTC(2026, 10, 25), replyChannel: 'phone', replyTo: '0812-3456-7890', handled: false, handledAt: null, handledBy: null, market: 'ID' },
            { id: 'm3', name: 'Old', telephone: 'call me', message: 'Old message.', email: null, company: null, createdAt: Date.UTC(2026, 10, 24), replyChannel: 'phone', replyTo: 'call me', handled: false, handledAt: null, handledBy: null, market: null },
          ])),
      },
    });
    renderConsole('/console/contact-messages');
    const asha = (await screen.findByText('Asha')).closest('tr') as HTMLElement;
    expect(within(asha).getByText('India')).toBeInTheDocument();
    for (const link of within(asha).getAllByRole('link', { name: '+91 98450 01234' })) expect(link).toHaveAttribute('href', 'tel:+919845001234');
    const budi = screen.getByText('Budi').closest('tr') as HTMLElement;
    expect(within(budi).getByText('Indonesia')).toBeInTheDocument();
    expect(within(budi).getAllByRole('link', { name: '+62 812 3456 7890' })[0]).toHaveAttribute('href', 'tel:+6281234567890');
    const old = screen.getByText('Old').closest('tr') as HTMLElement;
    expect(within(old).getByText('Not given')).toBeInTheDocument();
    expect(within(old).queryByRole('link')).not.toBeInTheDocument();
  });

  it('filters the queue by assignee and shows who has each complaint', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.support,
      signedIn: true,
      handlers: { 'GET /api/v1/console/complaints': () => ok(queuePage([{ ...SUMMARY, ageSeconds: 60, assigneeId: 'op-sup', assigneeName: 'sam' }])) },
    });
    const user = userEvent.setup();
    renderConsole('/console/complaints');
    expect(await screen.findByRole('cell', { name: 'sam' })).toBeInTheDocument();
    await user.selectOptions(screen.getByLabelText('Assignee'), 'Mine');
    await screen.findByRole('cell', { name: 'sam' });
    const asked = api.callsTo('GET', '/api/v1/console/complaints').map((c) => c.query.get('assignee'));
    expect(asked).toContain('all');
    expect(asked).toContain('mine');
  });

  it('assigns to me, and a canned reply in the ticket\'s language fills the reply box to edit before sending', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.support,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/complaints/CP-261125-AB12CD': () => ok({ ...DETAIL, market: 'ID', lang: 'id' }),
        'GET /api/v1/console/complaint-assignees': () => ok([{ id: 'op-sup', username: 'sam' }, { id: 'op-b', username: 'ben' }]),
        'GET /api/v1/console/canned-replies': () =>
          ok([
            { id: 'c1', lang: 'en', title: 'Refund sent', body: 'We refunded the fee.', createdAt: 0, updatedAt: 0 },
            { id: 'c2', lang: 'id', title: 'Dana dikembalikan', body: 'Biaya sudah kami kembalikan.', createdAt: 0, updatedAt: 0 },
          ]),
        'POST /api/v1/console/complaints/CP-261125-AB12CD/assign': () => ok({ ...DETAIL, market: 'ID', lang: 'id', assigneeId: 'op-sup', assigneeName: 'sam' }),
        'POST /api/v1/console/complaints/CP-261125-AB12CD/reply': () => ok({ ...DETAIL, market: 'ID', lang: 'id', status: 'answered' }),
      },
    });
    const user = userEvent.setup();
    renderConsole('/console/complaints/CP-261125-AB12CD');
    // The facts: each label with its value, one pair a cell.
    const facts = (await screen.findByText('Fees and charges')).closest('dl') as HTMLElement;
    for (const pair of Array.from(facts.children)) {
      expect(pair.tagName).toBe('DIV');
      expect(pair.querySelectorAll('dt')).toHaveLength(1);
      expect(pair.querySelectorAll('dd')).toHaveLength(1);
    }
    await user.click(screen.getByRole('button', { name: 'Assign to me' }));
    expect(await screen.findByText('Assigned to sam.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/complaints/CP-261125-AB12CD/assign')[0]?.body).toEqual({ assigneeId: 'op-sup' });
    // The assignees offered are those of the complaint's market.
    expect(api.callsTo('GET', '/api/v1/console/complaint-assignees').map((c) => c.query.get('market'))).toContain('ID');
    expect(api.callsTo('GET', '/api/v1/console/complaint-assignees').every((c) => c.query.get('market') === 'ID')).toBe(true);

    const picker = screen.getByLabelText('Canned reply (Bahasa Indonesia)');
    expect(within(picker).queryByRole('option', { name: 'Refund sent' })).not.toBeInTheDocument();
    await user.selectOptions(picker, 'Dana dikembalikan');
    const box = screen.getByLabelText('Reply to the borrower');
    expect(box).toHaveValue('Biaya sudah kami kembalikan.');
    await user.type(box, ' Terima kasih.');
    await user.click(screen.getByRole('button', { name: 'Send reply' }));
    await screen.findByText('Reply sent: the borrower reads it in the app.');
    expect(api.callsTo('POST', '/api/v1/console/complaints/CP-261125-AB12CD/reply')[0]?.body).toMatchObject({ body: 'Biaya sudah kami kembalikan. Terima kasih.' });
  });

  it('offers an operator of one market only that market’s language of canned replies', async () => {
    fakeConsoleApi({
      operator: OPERATORS.indonesiaSupport,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/canned-replies': () => ok([{ id: 'c2', lang: 'id', title: 'Dana dikembalikan', body: 'Biaya sudah kami kembalikan.', createdAt: 0, updatedAt: 0 }]),
      },
    });
    renderConsole('/console/canned-replies');
    expect(await screen.findByRole('button', { name: 'Edit Dana dikembalikan' })).toBeInTheDocument();
    const tabs = within(screen.getByRole('navigation', { name: 'Language' })).getAllByRole('link');
    expect(tabs.map((tab) => tab.textContent)).toEqual(['Bahasa Indonesia']);
  });

  it('keeps canned replies per language', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.support,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/canned-replies': () => ok([{ id: 'c2', lang: 'id', title: 'Dana dikembalikan', body: 'Biaya sudah kami kembalikan.', createdAt: 0, updatedAt: 0 }]),
        'POST /api/v1/console/canned-replies': () => ok({ id: 'c3', lang: 'id', title: 'Salam', body: 'Terima kasih.', createdAt: 0, updatedAt: 0 }),
      },
    });
    const user = userEvent.setup();
    renderConsole('/console/canned-replies?lang=id');
    expect(await screen.findByRole('button', { name: 'Edit Dana dikembalikan' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'New canned reply' }));
    await user.type(screen.getByLabelText('Title (shown in the menu)'), 'Salam');
    await user.type(screen.getByLabelText('Reply text'), 'Terima kasih.');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Canned reply saved.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/canned-replies')[0]?.body).toEqual({ lang: 'id', title: 'Salam', body: 'Terima kasih.' });
  });
});
