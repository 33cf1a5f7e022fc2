import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, ok, refusal, renderBorrower } from '@/test/render-borrower';

const CS_IN = {
  market: 'IN',
  lenderName: 'Kilat Finance Private Limited (NBFC)',
  servicePhone: '+91 80 0000 0100',
  serviceHours: 'Every day, 9:00 to 18:00 IST',
  whatsappNumber: '+91 90000 00100',
  whatsappUrl: 'https://wa.me/919000000100?text=Hello%2C%20I%20need%20help%20with%20my%20loan%20KL-261125-7F3K9Q.',
  email: 'hello@in.kilat.example',
  grievanceOfficer: { name: 'Priya Raman', email: 'grievance@in.kilat.example', phone: '+91 80 0000 0199' },
  escalation: { name: 'Reserve Bank of India – Complaint Management System', url: 'https://cms.rbi.org.in', phone: '14448' },
  openOrderNo: 'KL-261125-7F3K9Q',
};

const FAQ = [
  { id: 'f1', lang: 'en', category: 'apply', question: 'Who can borrow?', answer: 'Salaried people.', position: 1, updatedAt: 0 },
  { id: 'f2', lang: 'en', category: 'repay', question: 'How do I repay?', answer: 'By UPI.', position: 1, updatedAt: 0 },
];

const COMPLAINT = {
  ticketNo: 'CP-261125-AB12CD',
  market: 'IN',
  category: 'charges',
  categoryLabel: 'Fees and charges',
  orderNo: 'KL-261125-7F3K9Q',
  status: 'answered',
  createdAt: Date.UTC(2026, 10, 25, 6),
  updatedAt: Date.UTC(2026, 10, 25, 7),
  receivedOn: '2026-11-25',
  resolveBy: '2026-12-25',
  overdue: false,
  score: null,
  scoreComment: null,
  messages: [
    { id: 'm-1', author: 'borrower', body: 'I was charged twice.', createdAt: Date.UTC(2026, 10, 25, 6) },
    { id: 'm-2', author: 'support', body: 'We refunded the second fee.', createdAt: Date.UTC(2026, 10, 25, 7) },
  ],
  images: [{ imageId: 'img-1', contentType: 'image/jpeg', size: 1000, width: 64, height: 48, messageId: 'm-1' }],
  escalation: CS_IN.escalation,
};

describe('customer service and complaints', () => {
  it('shows how to reach us, the grievance officer and the FAQ by category', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/customer-service': () => ok(CS_IN),
      'GET /api/v1/borrower/faq': () => ok(FAQ),
    });
    api.signIn();
    renderBorrower('/app/customer-service?lang=1');
    expect(await screen.findByRole('link', { name: '+91 80 0000 0100' })).toHaveAttribute('href', 'tel:+918000000100');
    expect(screen.getByRole('link', { name: '+91 90000 00100' })).toHaveAttribute('href', CS_IN.whatsappUrl);
    expect(screen.getByText('Your message will name loan KL-261125-7F3K9Q')).toBeInTheDocument();
    expect(screen.getByText('Priya Raman')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'grievance@in.kilat.example' })).toHaveAttribute('href', 'mailto:grievance@in.kilat.example');
    const faq = await screen.findByRole('region', { name: 'Frequently asked questions' });
    expect(within(faq).getByText('Applying')).toBeInTheDocument();
    expect(within(faq).getByText('Repaying')).toBeInTheDocument();
    expect(within(faq).getByText('How do I repay?')).toBeInTheDocument();
  });

  it('shows an error with a retry when customer service cannot be loaded', async () => {
    const api = fakeApi({ 'GET /api/v1/borrower/customer-service': () => refusal(500, 'internal', 'Something went wrong on our side.') });
    api.signIn();
    renderBorrower('/app/customer-service?lang=1');
    expect(await screen.findByRole('alert')).toHaveTextContent('Customer service could not be loaded.');
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });

  it('dates each complaint on the market’s day, whatever the phone’s clock says', async () => {
    // 20:00 UTC on 25 Nov is 01:30 on 26 Nov in India.
    const late = { ...COMPLAINT, createdAt: Date.UTC(2026, 10, 25, 20), messages: undefined, images: undefined, escalation: undefined };
    fakeApi({ 'GET /api/v1/borrower/complaints': () => ok([late]) }).signIn();
    renderBorrower('/app/complaints?lang=1');
    expect(await screen.findByText('Fees and charges · 26 Nov 2026')).toBeInTheDocument();
  });

  it('says so when there are no complaints, and offers to file one (Indonesian)', async () => {
    const api = fakeApi({ 'GET /api/v1/borrower/complaints': () => ok([]) });
    api.signIn();
    renderBorrower('/app/complaints');
    expect(await screen.findByRole('heading', { name: 'Belum ada pengaduan' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Ajukan pengaduan' })).toHaveAttribute('href', '/app/complaints/new');
  });

  it('files a complaint with the category and text, and shows the ticket at once', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/complaints/init': () =>
        ok({
          categories: [
            { code: 'repayment', label: 'Repayment' },
            { code: 'charges', label: 'Fees and charges' },
          ],
          loans: [],
          maxImages: 3,
          maxImageBytes: 5242880,
        }),
      'POST /api/v1/borrower/complaints': () => ok({ ...COMPLAINT, status: 'open', messages: COMPLAINT.messages.slice(0, 1), images: [] }, 201),
      'GET /api/v1/borrower/complaints/CP-261125-AB12CD': () => ok({ ...COMPLAINT, status: 'open', messages: COMPLAINT.messages.slice(0, 1), images: [] }),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/complaints/new?lang=1');
    await user.click(await screen.findByText('Fees and charges'));
    await user.type(screen.getByPlaceholderText('Tell us what happened, and when.'), 'I was charged twice.');
    await user.click(screen.getByRole('button', { name: 'Send complaint' }));
    expect(await screen.findByText('CP-261125-AB12CD')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/borrower/complaints')[0]?.body).toEqual({
      category: 'charges',
      description: 'I was charged twice.',
      imageIds: [],
    });
    expect(screen.getByText('We have your complaint and will answer here.')).toBeInTheDocument();
  });

  it('shows the answer and sends the rating once', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/complaints/CP-261125-AB12CD': () => ok(COMPLAINT),
      'POST /api/v1/borrower/complaints/CP-261125-AB12CD/score': () => ok({ ...COMPLAINT, score: 4, scoreComment: null }),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/complaints/CP-261125-AB12CD?lang=1');
    expect(await screen.findByText('We refunded the second fee.')).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'Photo 1' })).toHaveAttribute('src', '/api/v1/borrower/complaints/images/img-1');
    expect(screen.queryByText('Not resolved in time?')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: '4 of 5' }));
    await user.click(screen.getByRole('button', { name: 'Send rating' }));
    expect(await screen.findByRole('heading', { name: 'Your rating' })).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/borrower/complaints/CP-261125-AB12CD/score')[0]?.body).toEqual({ score: 4 });
  });

  it('shows where to escalate a complaint past its deadline', async () => {
    const api = fakeApi({ 'GET /api/v1/borrower/complaints/CP-261125-AB12CD': () => ok({ ...COMPLAINT, status: 'open', overdue: true }) });
    api.signIn();
    renderBorrower('/app/complaints/CP-261125-AB12CD?lang=1');
    expect(await screen.findByRole('heading', { name: 'Not resolved in time?' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /Complaint Management System/ })).toHaveAttribute('href', 'https://cms.rbi.org.in');
    expect(screen.getByText('Past the deadline')).toBeInTheDocument();
  });

  it('marks the empty fields of a new complaint where they are, and sends nothing', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/complaints/init': () =>
        ok({ categories: [{ code: 'charges', label: 'Fees and charges' }], loans: [], maxImages: 3, maxImageBytes: 5242880 }),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/complaints/new?lang=1');
    await user.click(await screen.findByRole('button', { name: 'Send complaint' }));
    expect(await screen.findByText('Choose what it is about.')).toBeInTheDocument();
    expect(screen.getByText('Tell us what happened.')).toBeInTheDocument();
    await user.type(screen.getByPlaceholderText('Tell us what happened, and when.'), 'Too short');
    await user.click(screen.getByRole('button', { name: 'Send complaint' }));
    expect(await screen.findByText('Please write at least 10 characters.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/borrower/complaints')).toHaveLength(0);
  });

  it('shows each photo in the thread with the message it came with, and sends a reply', async () => {
    const withReply = {
      ...COMPLAINT,
      status: 'open',
      messages: [...COMPLAINT.messages, { id: 'm-3', author: 'borrower', body: 'Here is my statement.', createdAt: Date.UTC(2026, 10, 26, 9) }],
      images: [...COMPLAINT.images, { imageId: 'img-2', contentType: 'image/png', size: 900, width: 64, height: 48, messageId: 'm-3' }],
    };
    const api = fakeApi({
      'GET /api/v1/borrower/complaints/CP-261125-AB12CD': () => ok(COMPLAINT),
      'POST /api/v1/borrower/complaints/CP-261125-AB12CD/replies': () => ok(withReply, 201),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/complaints/CP-261125-AB12CD?lang=1');
    const first = (await screen.findByText('I was charged twice.')).closest('li') as HTMLElement;
    expect(within(first).getByRole('img', { name: 'Photo 1' })).toHaveAttribute('src', '/api/v1/borrower/complaints/images/img-1');
    expect(within(first).getByText(/25 Nov 2026/)).toBeInTheDocument();
    // An empty reply is marked on its field and not sent.
    await user.click(screen.getByRole('button', { name: 'Send reply' }));
    expect(await screen.findByText('Write your reply first.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/borrower/complaints/CP-261125-AB12CD/replies')).toHaveLength(0);
    await user.type(screen.getByPlaceholderText('Add details or answer our question.'), 'Here is my statement.');
    await user.click(screen.getByRole('button', { name: 'Send reply' }));
    const reply = (await screen.findByText('Here is my statement.')).closest('li') as HTMLElement;
    expect(within(reply).getByRole('img', { name: 'Photo 2' })).toHaveAttribute('src', '/api/v1/borrower/complaints/images/img-2');
    expect(api.callsTo('POST', '/api/v1/borrower/complaints/CP-261125-AB12CD/replies')[0]?.body).toEqual({ body: 'Here is my statement.', imageIds: [] });
  });

  it('says a closed complaint takes no more replies, and a reply refused as closed says so on the field (Indonesian)', async () => {
    const closed = { ...COMPLAINT, market: 'ID', status: 'closed' };
    const api = fakeApi({ 'GET /api/v1/borrower/complaints/CP-261125-AB12CD': () => ok(closed) });
    api.signIn();
    renderBorrower('/app/complaints/CP-261125-AB12CD');
    expect(await screen.findByRole('heading', { name: 'Pengaduan ini sudah ditutup' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Kirim balasan' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Ajukan pengaduan' })).toHaveAttribute('href', '/app/complaints/new');
  });

  it('shows the refusal on the reply field when the complaint was closed meanwhile', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/complaints/CP-261125-AB12CD': () => ok(COMPLAINT),
      'POST /api/v1/borrower/complaints/CP-261125-AB12CD/replies': () => refusal(409, 'complaint_closed', 'This complaint is closed.'),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/complaints/CP-261125-AB12CD?lang=1');
    await user.type(await screen.findByPlaceholderText('Add details or answer our question.'), 'One more thing');
    await user.click(screen.getByRole('button', { name: 'Send reply' }));
    expect(await screen.findByText('This complaint was closed, so the reply was not sent.')).toBeInTheDocument();
  });
});
