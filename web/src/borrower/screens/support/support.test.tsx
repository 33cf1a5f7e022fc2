import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApiCall, deferred, fakeApi, type Handler, ok, refusal, renderBorrower } from '@/test/render-borrower';

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

const OJK = { name: 'Kontak OJK 157 (Otoritas Jasa Keuangan)', url: 'https://kontak157.ojk.go.id', phone: '157' };

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

  it('wraps a long e-mail address inside the card, between its parts (Indonesian)', async () => {
    const officer = { name: 'Dewi Lestari', email: 'pengaduan@id.kilat.example', phone: '+62 21 0000 0199' };
    fakeApi({
      'GET /api/v1/borrower/customer-service': () => ok({ ...CS_IN, market: 'ID', grievanceOfficer: officer, escalation: OJK }),
      'GET /api/v1/borrower/faq': () => ok([]),
    }).signIn();
    renderBorrower('/app/customer-service?lang=id');
    const email = await screen.findByRole('link', { name: 'pengaduan@id.kilat.example' });
    expect(email).toHaveAttribute('href', 'mailto:pengaduan@id.kilat.example');
    // `.long-value` is `overflow-wrap: anywhere` (borrower.css); the <wbr>s let it break after "@" and before a dot first.
    expect(email).toHaveClass('long-value');
    expect(email.querySelectorAll('wbr')).toHaveLength(3);
    expect(Array.from(email.childNodes, (node) => node.textContent)).toEqual(['pengaduan@', '', 'id', '', '.kilat', '', '.example']);
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
    expect(screen.getByRole('link', { name: '14448' })).toHaveAttribute('href', 'tel:14448');
    expect(screen.getByText('Past the deadline')).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'This complaint is closed' })).not.toBeInTheDocument();
  });

  it('says why a complaint may not be found, and leads back to my complaints (English and Indonesian)', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/complaints/CP-OTHER': () => refusal(404, 'not_found', 'Not found.'),
      'GET /api/v1/borrower/complaints': () => ok([]),
    });
    api.signIn();
    const user = userEvent.setup();
    const view = renderBorrower('/app/complaints/CP-OTHER?lang=1');
    expect(await screen.findByRole('heading', { level: 2, name: 'No such complaint' })).toBeInTheDocument();
    expect(
      screen.getByText('There is no complaint with this number in your account. It may have been filed from another account, or the link may be wrong.'),
    ).toBeInTheDocument();
    await user.click(screen.getByRole('link', { name: 'My complaints' }));
    await waitFor(() => expect(window.location.pathname).toBe('/app/complaints'));
    view.unmount();

    renderBorrower('/app/complaints/CP-OTHER?lang=id');
    expect(await screen.findByRole('heading', { level: 2, name: 'Pengaduan tidak ditemukan' })).toBeInTheDocument();
    expect(screen.getByText(/Mungkin pengaduan itu diajukan dari akun lain, atau tautannya salah\./)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Pengaduan saya' })).toHaveAttribute('href', '/app/complaints');
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

  it('says a closed complaint takes no more replies, and where to take it if the answer does not satisfy (Indonesian)', async () => {
    const closed = { ...COMPLAINT, market: 'ID', status: 'closed', escalation: OJK };
    const api = fakeApi({ 'GET /api/v1/borrower/complaints/CP-261125-AB12CD': () => ok(closed) });
    api.signIn();
    renderBorrower('/app/complaints/CP-261125-AB12CD');
    const section = (await screen.findByRole('heading', { name: 'Pengaduan ini sudah ditutup' })).closest('section') as HTMLElement;
    expect(screen.queryByRole('button', { name: 'Kirim balasan' })).not.toBeInTheDocument();
    expect(within(section).getByText('Anda tidak dapat membalas di sini lagi.')).toBeInTheDocument();
    expect(
      within(section).getByText('Jika Anda tidak puas dengan jawaban kami, Anda dapat mengadukannya ke layanan konsumen OJK:'),
    ).toBeInTheDocument();
    expect(within(section).getByRole('link', { name: OJK.name })).toHaveAttribute('href', OJK.url);
    expect(within(section).getByRole('link', { name: '157' })).toHaveAttribute('href', 'tel:157');
    // A new complaint is for another problem, not the same one again.
    expect(within(section).getByRole('link', { name: 'Ajukan pengaduan baru untuk masalah lain' })).toHaveAttribute('href', '/app/complaints/new');
    expect(screen.queryByRole('heading', { name: 'Belum terselesaikan tepat waktu?' })).not.toBeInTheDocument();
  });

  it('tells the borrower of a closed complaint where to escalate if not satisfied, once, without the overdue block (India)', async () => {
    // Closed after its deadline: the closed section alone says where to escalate.
    const closed = { ...COMPLAINT, status: 'closed', overdue: true };
    const api = fakeApi({ 'GET /api/v1/borrower/complaints/CP-261125-AB12CD': () => ok(closed) });
    api.signIn();
    renderBorrower('/app/complaints/CP-261125-AB12CD?lang=1');
    const section = (await screen.findByRole('heading', { name: 'This complaint is closed' })).closest('section') as HTMLElement;
    expect(within(section).getByText('You can no longer reply here.')).toBeInTheDocument();
    expect(
      within(section).getByText("If you are not satisfied with our answer, you can take your complaint to the Reserve Bank of India's Integrated Ombudsman:"),
    ).toBeInTheDocument();
    expect(within(section).getByRole('link', { name: CS_IN.escalation.name })).toHaveAttribute('href', 'https://cms.rbi.org.in');
    expect(within(section).getByRole('link', { name: '14448' })).toHaveAttribute('href', 'tel:14448');
    expect(within(section).getByRole('link', { name: 'File a new complaint about a different problem' })).toHaveAttribute('href', '/app/complaints/new');
    expect(screen.queryByRole('heading', { name: 'Not resolved in time?' })).not.toBeInTheDocument();
    expect(screen.getAllByRole('link', { name: CS_IN.escalation.name })).toHaveLength(1);
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

const INIT = { categories: [{ code: 'charges', label: 'Fees and charges' }], loans: [], maxImages: 3, maxImageBytes: 5242880 };
const IMAGES = '/api/v1/borrower/complaints/images';
const EARLIER_NOTE = 'Photos you added earlier and did not send are here too. Send them now, or remove the ones you do not need.';

function image(imageId: string) {
  return { imageId, contentType: 'image/jpeg', size: 1000, width: 64, height: 48, messageId: null };
}

/** The server's uploads not yet sent: an upload adds one (`new-1`, `new-2`…), a removal or a send takes them away. */
function uploads(ids: string[]) {
  let waiting = ids.map(image);
  let uploaded = 0;
  const handlers: Record<string, Handler> = {
    [`GET ${IMAGES}`]: () => ok(waiting),
    [`POST ${IMAGES}`]: () => {
      uploaded += 1;
      const upload = image(`new-${uploaded}`);
      waiting = [...waiting, upload];
      return ok(upload, 201);
    },
  };
  for (const id of [...ids, 'new-1', 'new-2', 'new-3']) {
    handlers[`DELETE ${IMAGES}/${id}`] = () => {
      waiting = waiting.filter((w) => w.imageId !== id);
      return ok(null);
    };
  }
  const sent = (call: ApiCall) => {
    const sentIds = (call.body as { imageIds?: string[] }).imageIds ?? [];
    waiting = waiting.filter((w) => !sentIds.includes(w.imageId));
  };
  return { handlers, sent };
}

/** The photos the picker shows, by the upload they are. */
function shownPhotos(): string[] {
  return Array.from(document.querySelectorAll('.adm-image-uploader-cell-image img')).map((img) => img.getAttribute('src') ?? '');
}

function photoUrl(imageId: string): string {
  return `${IMAGES}/${imageId}`;
}

function removeControl(imageId: string): HTMLElement {
  const img = document.querySelector(`.adm-image-uploader-cell-image img[src="${photoUrl(imageId)}"]`);
  const control = img?.closest('.adm-image-uploader-cell')?.querySelector('.adm-image-uploader-cell-delete');
  if (!(control instanceof HTMLElement)) throw new Error(`no remove control for ${imageId}`);
  return control;
}

function photoInput(): HTMLInputElement {
  return screen.getByLabelText('Upload', { selector: 'input' });
}

/** The picker's add button, shown while fewer photos than the limit are there. */
function addPhotoButton(): HTMLElement {
  return screen.getByRole('button', { name: 'Upload', hidden: true });
}

function jpeg(name: string): File {
  return new File(['jpeg'], name, { type: 'image/jpeg' });
}

describe('photos uploaded earlier and not sent', () => {
  // The picker previews a photo being uploaded from its file: object URLs stubbed for these tests, and whatever the
  // environment had put back after each (the workers share one environment across files: deleting Node's own would
  // break every later file that saves a download).
  const originals = {
    createObjectURL: Object.getOwnPropertyDescriptor(URL, 'createObjectURL'),
    revokeObjectURL: Object.getOwnPropertyDescriptor(URL, 'revokeObjectURL'),
  };
  beforeEach(() => {
    Object.defineProperty(URL, 'createObjectURL', { configurable: true, writable: true, value: () => 'blob:photo' });
    Object.defineProperty(URL, 'revokeObjectURL', { configurable: true, writable: true, value: () => undefined });
  });
  afterEach(() => {
    for (const [name, original] of Object.entries(originals)) {
      if (original) Object.defineProperty(URL, name, original);
      else Reflect.deleteProperty(URL, name);
    }
  });

  it('shows them in a new complaint, with a note, and sends them with it', async () => {
    const server = uploads(['w-1', 'w-2']);
    const api = fakeApi({
      ...server.handlers,
      'GET /api/v1/borrower/complaints/init': () => ok(INIT),
      'POST /api/v1/borrower/complaints': (call) => {
        server.sent(call);
        return ok({ ...COMPLAINT, status: 'open', messages: COMPLAINT.messages.slice(0, 1), images: [] }, 201);
      },
      'GET /api/v1/borrower/complaints/CP-261125-AB12CD': () => ok({ ...COMPLAINT, status: 'open', messages: COMPLAINT.messages.slice(0, 1), images: [] }),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/complaints/new?lang=1');
    expect(await screen.findByText(EARLIER_NOTE)).toBeInTheDocument();
    expect(shownPhotos()).toEqual([photoUrl('w-1'), photoUrl('w-2')]);
    // Two of three: one more may be added.
    expect(addPhotoButton()).toBeVisible();
    await user.click(screen.getByText('Fees and charges'));
    await user.type(screen.getByPlaceholderText('Tell us what happened, and when.'), 'I was charged twice.');
    await user.click(screen.getByRole('button', { name: 'Send complaint' }));
    expect(await screen.findByText('CP-261125-AB12CD')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/borrower/complaints')[0]?.body).toEqual({
      category: 'charges',
      description: 'I was charged twice.',
      imageIds: ['w-1', 'w-2'],
    });
  });

  it('removes one on the server, counts them in the limit, and never shows an upload of this visit twice', async () => {
    const server = uploads(['w-1', 'w-2']);
    const api = fakeApi({
      ...server.handlers,
      'GET /api/v1/borrower/complaints/init': () => ok(INIT),
      'POST /api/v1/borrower/complaints': () => ok({ ...COMPLAINT, status: 'open', messages: COMPLAINT.messages.slice(0, 1), images: [] }, 201),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/complaints/new?lang=1');
    await screen.findByText(EARLIER_NOTE);
    await user.upload(photoInput(), jpeg('receipt.jpg'));
    await waitFor(() => expect(shownPhotos()).toEqual([photoUrl('w-1'), photoUrl('w-2'), photoUrl('new-1')]));
    // Three with the earlier ones: the limit.
    expect(addPhotoButton()).not.toBeVisible();

    await user.click(removeControl('w-1'));
    await waitFor(() => expect(api.callsTo('DELETE', `${IMAGES}/w-1`)).toHaveLength(1));
    expect(shownPhotos()).toEqual([photoUrl('w-2'), photoUrl('new-1')]);
    // The list is read again after the removal; it names this visit's upload too, which stays shown once.
    await waitFor(() => expect(api.callsTo('GET', IMAGES)).toHaveLength(2));
    await waitFor(() => expect(addPhotoButton()).toBeVisible());
    expect(shownPhotos()).toEqual([photoUrl('w-2'), photoUrl('new-1')]);

    await user.upload(photoInput(), jpeg('statement.jpg'));
    await waitFor(() => expect(shownPhotos()).toEqual([photoUrl('w-2'), photoUrl('new-1'), photoUrl('new-2')]));
    await user.click(screen.getByText('Fees and charges'));
    await user.type(screen.getByPlaceholderText('Tell us what happened, and when.'), 'I was charged twice.');
    await user.click(screen.getByRole('button', { name: 'Send complaint' }));
    await waitFor(() => expect(api.callsTo('POST', '/api/v1/borrower/complaints')).toHaveLength(1));
    expect(api.callsTo('POST', '/api/v1/borrower/complaints')[0]?.body).toEqual({
      category: 'charges',
      description: 'I was charged twice.',
      imageIds: ['w-2', 'new-1', 'new-2'],
    });
  });

  it('brings a photo back, still counted, when its removal failed', async () => {
    const server = uploads(['w-1', 'w-2']);
    const api = fakeApi({
      ...server.handlers,
      'GET /api/v1/borrower/complaints/init': () => ok(INIT),
      [`DELETE ${IMAGES}/w-1`]: () => refusal(500, 'internal', 'Something went wrong on our side.'),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/complaints/new?lang=1');
    await screen.findByText(EARLIER_NOTE);
    await user.click(removeControl('w-1'));
    expect(await screen.findByText('The photo could not be removed. Try again.')).toBeInTheDocument();
    await waitFor(() => expect(shownPhotos()).toEqual([photoUrl('w-1'), photoUrl('w-2')]));
  });

  it('shows them in a reply (Indonesian), sends them with it, and reads the list again after', async () => {
    const server = uploads(['w-1', 'w-2']);
    const withReply = {
      ...COMPLAINT,
      market: 'ID',
      escalation: OJK,
      messages: [...COMPLAINT.messages, { id: 'm-3', author: 'borrower', body: 'Ini buktinya.', createdAt: Date.UTC(2026, 10, 26, 9) }],
      images: [...COMPLAINT.images, { ...image('w-1'), messageId: 'm-3' }, { ...image('w-2'), messageId: 'm-3' }],
    };
    const api = fakeApi({
      ...server.handlers,
      'GET /api/v1/borrower/complaints/CP-261125-AB12CD': () => ok({ ...COMPLAINT, market: 'ID', escalation: OJK }),
      'POST /api/v1/borrower/complaints/CP-261125-AB12CD/replies': (call) => {
        server.sent(call);
        return ok(withReply, 201);
      },
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/complaints/CP-261125-AB12CD');
    const reply = (await screen.findByRole('heading', { name: 'Balas' })).closest('section') as HTMLElement;
    expect(
      await within(reply).findByText(
        'Foto yang Anda tambahkan sebelumnya dan belum terkirim juga ada di sini. Kirim sekarang, atau hapus yang tidak diperlukan.',
      ),
    ).toBeInTheDocument();
    expect(shownPhotos()).toEqual([photoUrl('w-1'), photoUrl('w-2')]);
    await user.type(within(reply).getByRole('textbox'), 'Ini buktinya.');
    await user.click(within(reply).getByRole('button', { name: 'Kirim balasan' }));
    expect(await screen.findByText('Ini buktinya.', { selector: 'p' })).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/borrower/complaints/CP-261125-AB12CD/replies')[0]?.body).toEqual({
      body: 'Ini buktinya.',
      imageIds: ['w-1', 'w-2'],
    });
    // Sent: the form is empty again, and the list, read again, has nothing waiting.
    await waitFor(() => expect(api.callsTo('GET', IMAGES)).toHaveLength(2));
    expect(shownPhotos()).toEqual([]);
    expect(within(reply).queryByText(/Foto yang Anda tambahkan sebelumnya/)).not.toBeInTheDocument();
  });

  it('lets the borrower write while the list loads, and adds the photos when it comes', async () => {
    const list = deferred();
    const api = fakeApi({ 'GET /api/v1/borrower/complaints/init': () => ok(INIT), [`GET ${IMAGES}`]: () => list.promise });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/complaints/new?lang=1');
    await user.type(await screen.findByPlaceholderText('Tell us what happened, and when.'), 'I was charged twice.');
    expect(shownPhotos()).toEqual([]);
    list.resolve(ok([image('w-1')]));
    await waitFor(() => expect(shownPhotos()).toEqual([photoUrl('w-1')]));
    expect(screen.getByPlaceholderText('Tell us what happened, and when.')).toHaveValue('I was charged twice.');
  });

  it('leaves the form as it was when the list cannot be read', async () => {
    const server = uploads([]);
    const api = fakeApi({
      ...server.handlers,
      [`GET ${IMAGES}`]: () => refusal(500, 'internal', 'Something went wrong on our side.'),
      'GET /api/v1/borrower/complaints/init': () => ok(INIT),
      'POST /api/v1/borrower/complaints': () => ok({ ...COMPLAINT, status: 'open', messages: COMPLAINT.messages.slice(0, 1), images: [] }, 201),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/complaints/new?lang=1');
    await user.click(await screen.findByText('Fees and charges'));
    await waitFor(() => expect(api.callsTo('GET', IMAGES).length).toBeGreaterThan(0));
    await user.upload(photoInput(), jpeg('receipt.jpg'));
    await waitFor(() => expect(shownPhotos()).toEqual([photoUrl('new-1')]));
    expect(screen.queryByText(EARLIER_NOTE)).not.toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    await user.type(screen.getByPlaceholderText('Tell us what happened, and when.'), 'I was charged twice.');
    await user.click(screen.getByRole('button', { name: 'Send complaint' }));
    await waitFor(() => expect(api.callsTo('POST', '/api/v1/borrower/complaints')).toHaveLength(1));
    expect(api.callsTo('POST', '/api/v1/borrower/complaints')[0]?.body).toEqual({
      category: 'charges',
      description: 'I was charged twice.',
      imageIds: ['new-1'],
    });
  });
});
