import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { OPERATORS, fakeConsoleApi, ok, renderConsole } from '@/test/render-console';

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
};
const DETAIL = {
  ...SUMMARY,
  messages: [{ author: 'borrower', body: 'I was charged twice.', createdAt: Date.UTC(2026, 10, 25, 6) }],
  images: [],
  escalation: { name: 'RBI CMS', url: 'https://cms.rbi.org.in', phone: '14448' },
  scoreComment: null,
  phoneMasked: '+91 ******1006',
};

describe('support console', () => {
  it('lists complaints with their age and flags one past the deadline', async () => {
    fakeConsoleApi({
      operator: OPERATORS.support,
      signedIn: true,
      handlers: { 'GET /api/v1/console/complaints': () => ok([{ ...SUMMARY, ageSeconds: 7200 }]) },
    });
    renderConsole('/console/complaints');
    expect(await screen.findByRole('link', { name: 'CP-261125-AB12CD' })).toHaveAttribute('href', '/console/complaints/CP-261125-AB12CD');
    expect(screen.getByText('Past the deadline')).toBeInTheDocument();
  });

  it('replies to a complaint with the CSRF token and shows the answer', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.support,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/complaints/CP-261125-AB12CD': () => ok(DETAIL),
        'POST /api/v1/console/complaints/CP-261125-AB12CD/reply': () =>
          ok({ ...DETAIL, status: 'answered', messages: [...DETAIL.messages, { author: 'support', body: 'Refunded.', createdAt: Date.UTC(2026, 10, 25, 8) }] }),
      },
    });
    const user = userEvent.setup();
    renderConsole('/console/complaints/CP-261125-AB12CD');
    expect(await screen.findByText('I was charged twice.')).toBeInTheDocument();
    expect(screen.getByText('+91 ******1006')).toBeInTheDocument();
    await user.type(screen.getByLabelText('Reply to the borrower'), 'Refunded.');
    await user.click(screen.getByRole('button', { name: 'Send reply' }));
    expect(await screen.findByText('Reply sent: the borrower reads it in the app.')).toBeInTheDocument();
    expect(screen.getByText('Refunded.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/console/complaints/CP-261125-AB12CD/reply')[0]?.body).toEqual({ body: 'Refunded.' });
  });

  it('marks a contact message handled and shows how to reply', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.adminOnly,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/contact-messages': () =>
          ok([
            { id: 'm1', name: 'Sari', telephone: '0812', message: 'Email me.', email: 'sari@example.com', company: null, createdAt: Date.UTC(2026, 10, 25), replyChannel: 'email', replyTo: 'sari@example.com', handled: false, handledAt: null, handledBy: null },
          ]),
        'POST /api/v1/console/contact-messages/m1/handled': () => ok({ id: 'm1', markedNow: true }),
      },
    });
    const user = userEvent.setup();
    renderConsole('/console/contact-messages');
    expect(await screen.findByRole('link', { name: 'sari@example.com' })).toHaveAttribute('href', 'mailto:sari@example.com');
    await user.click(screen.getByRole('button', { name: 'Mark handled' }));
    expect(api.callsTo('POST', '/api/v1/console/contact-messages/m1/handled')).toHaveLength(1);
  });
});
