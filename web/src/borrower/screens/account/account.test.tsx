import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeApi, ok, refusal, renderBorrower } from '@/test/render-borrower';

const MENU_EN = [
  { key: 'loans', title: 'My loans', route: '/orders', action: 'navigate', danger: false },
  { key: 'bank_card', title: 'Bank account', route: '/bank-card', action: 'navigate', danger: false },
  { key: 'customer_service', title: 'Customer service', route: '/customer-service', action: 'navigate', danger: false },
  { key: 'complaints', title: 'Complaints', route: '/complaints', action: 'navigate', danger: false },
  { key: 'about', title: 'About us', route: '/about', action: 'navigate', danger: false },
  { key: 'privacy', title: 'Privacy policy', route: '/privacy', action: 'navigate', danger: false },
  { key: 'delete_account', title: 'Delete account', route: '/account/delete', action: 'navigate', danger: true },
  { key: 'logout', title: 'Log out', route: '/login', action: 'logout', danger: false },
];

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the me menu', () => {
  it('shows the entries the server serves, with their routes', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/menu': () => ok([{ ...MENU_EN[0], title: 'Loans from the server' }, ...MENU_EN.slice(1)]),
    });
    api.signIn();
    renderBorrower('/app/me?lang=1');
    expect(await screen.findByRole('link', { name: 'Loans from the server' }, { timeout: 4000 })).toHaveAttribute('href', '/app/orders');
    const main = screen.getByRole('main');
    expect(within(main).getByRole('link', { name: 'Bank account' })).toHaveAttribute('href', '/app/bank-card');
    expect(within(main).getByRole('link', { name: 'Customer service' })).toHaveAttribute('href', '/app/customer-service');
    expect(within(main).getByRole('link', { name: 'Complaints' })).toHaveAttribute('href', '/app/complaints');
    expect(within(main).getByRole('link', { name: 'Delete account' })).toHaveAttribute('href', '/app/account/delete');
    // Log out is the button, not a link.
    expect(within(main).queryByRole('link', { name: 'Log out' })).not.toBeInTheDocument();
    expect(within(main).getByRole('button', { name: 'Log out' })).toBeInTheDocument();
    expect(screen.queryByText('The menu could not be loaded; these are the usual entries.')).not.toBeInTheDocument();
  });

  it('falls back to the usual entries in the app language when the menu cannot be loaded', async () => {
    const api = fakeApi({ 'GET /api/v1/borrower/menu': () => refusal(500, 'internal', 'Something went wrong on our side.') });
    api.signIn();
    renderBorrower('/app/me');
    expect(await screen.findByText('Menu tidak dapat dimuat; ini menu yang biasa.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Hapus akun' })).toHaveAttribute('href', '/app/account/delete');
    expect(screen.getByRole('link', { name: 'Pengaduan' })).toHaveAttribute('href', '/app/complaints');
  });

  it('downloads the borrower data as a JSON file', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/export': () => ok({ format: 'kilat-export/1', generatedAt: 1, sections: { profile: { phone: '+919876543210' } } }),
    });
    api.signIn();
    const blobs: Blob[] = [];
    const created = vi.fn((blob: Blob) => {
      blobs.push(blob);
      return 'blob:kilat';
    });
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: created, revokeObjectURL: vi.fn() }));
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    const user = userEvent.setup();
    renderBorrower('/app/me?lang=1');
    await user.click(await screen.findByRole('button', { name: 'Download my data' }));
    await waitFor(() => expect(click).toHaveBeenCalled());
    expect(api.callsTo('GET', '/api/v1/borrower/export')).toHaveLength(1);
    expect(blobs).toHaveLength(1);
    expect(JSON.parse(await blobs[0]!.text()).sections.profile.phone).toBe('+919876543210');
    expect(await screen.findByText('Your data was downloaded as kilat-data.json.')).toBeInTheDocument();
  });
});

describe('deleting the account', () => {
  it('explains what is deleted and kept, and is refused with the amount owed', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/account/deletion': () =>
        ok({ allowed: false, blocker: 'money_outstanding', orderNo: 'KL-261125-ABC123', outstanding: 2_134_050, currency: 'INR' }),
    });
    api.signIn();
    renderBorrower('/app/account/delete?lang=1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Delete account' })).toBeInTheDocument();
    expect(screen.getByText(/Prevention of Money-laundering Act/)).toBeInTheDocument();
    expect(
      await screen.findByText('Your loan KL-261125-ABC123 still has ₹21,340.50 to repay. Repay it first, then you can delete your account.'),
    ).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to the loan' })).toHaveAttribute('href', '/app/orders/KL-261125-ABC123');
    expect(screen.queryByRole('button', { name: 'Delete my account' })).not.toBeInTheDocument();
  });

  it('states the Indonesian retention rule in Indonesian', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/account/deletion': () =>
        ok({ allowed: false, blocker: 'open_application', orderNo: 'KL-261125-XYZ789', outstanding: 0, currency: 'IDR' }),
    });
    api.signIn();
    renderBorrower('/app/account/delete');
    const kept = await screen.findByText(/ketentuan OJK/);
    // The KFS by its Indonesian name, as on every other screen: not "ringkasan informasi (KFS)".
    expect(kept).toHaveTextContent(/^Pinjaman Anda, Ringkasan Informasi Pinjaman dan perjanjiannya, pembayaran/);
    expect(kept).not.toHaveTextContent('KFS');
    expect(await screen.findByText(/Pengajuan KL-261125-XYZ789 Anda masih berjalan/)).toBeInTheDocument();
  });

  it('says a payment still being settled keeps the account, since money owed back goes to its bank account', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/account/deletion': () =>
        ok({ allowed: false, blocker: 'payment_unsettled', orderNo: 'KL-261125-REF001', outstanding: 0, currency: 'INR' }),
    });
    api.signIn();
    renderBorrower('/app/account/delete?lang=1');
    expect(
      await screen.findByText(
        'A payment on your loan KL-261125-REF001 is not settled yet: it is being checked, its payment instructions can still be paid until they expire, we owe you money back, or the money was taken back by your bank or the payment app and we are settling it with you. Any money we owe you goes to your bank account, so your account stays until this is settled.',
      ),
    ).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to the loan' })).toHaveAttribute('href', '/app/orders/KL-261125-REF001');
    expect(screen.queryByRole('button', { name: 'Delete my account' })).not.toBeInTheDocument();
  });

  it('deletes after the borrower ticks the box and confirms, then shows the login screen', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/account/deletion': () => ok({ allowed: true, blocker: null, orderNo: null, outstanding: 0, currency: 'INR' }),
      'POST /api/v1/borrower/account/deletion': () => ok({ deletedAt: 1, sessionsRevoked: 1 }),
    });
    api.signIn();
    // What the tab kept of the account's payments goes with it.
    sessionStorage.setItem('kilat.pay:KL-261125-ABC123:due:upi:100:2026-12-01', 'key-1');
    const user = userEvent.setup({ pointerEventsCheck: 0 });
    renderBorrower('/app/account/delete?lang=1');
    const button = await screen.findByRole('button', { name: 'Delete my account' });
    expect(button).toBeDisabled();
    await user.click(screen.getByRole('checkbox'));
    expect(button).toBeEnabled();
    await user.click(button);
    await user.click(await screen.findByRole('button', { name: 'Delete' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Log in' })).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/borrower/account/deletion')).toHaveLength(1);
    expect(sessionStorage.getItem('kilat.pay:KL-261125-ABC123:due:upi:100:2026-12-01')).toBeNull();
  });

  it('shows an error state with a retry when the check fails', async () => {
    const api = fakeApi({ 'GET /api/v1/borrower/account/deletion': () => refusal(500, 'internal', 'Something went wrong on our side.') });
    api.signIn();
    renderBorrower('/app/account/delete?lang=1');
    expect(await screen.findByRole('alert')).toHaveTextContent('We could not check whether your account can be deleted.');
  });
});

describe('the bank account page', () => {
  it('shows the account on file masked, with the way to change it', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/certification/bank': () =>
        ok({ step: 'bank', certStatus: 'done', completedAt: 1, data: { bankCode: 'HDFC', accountNumber: '**** **** 4567', ifsc: 'HDFC0001234' }, bankLockedBy: null }),
      'GET /api/v1/borrower/enums': () => ok({ banks: [{ code: 'HDFC', label: 'HDFC Bank' }] }),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/bank-card?lang=1');
    expect(await screen.findByText('**** **** 4567')).toBeInTheDocument();
    expect(await screen.findByText('HDFC Bank')).toBeInTheDocument();
    expect(screen.getByText('HDFC0001234')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Change bank account' })).toBeEnabled();
    expect(screen.getByText('A new account needs a verification code, and cannot be set while a loan is open.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Change bank account' }));
    await waitFor(() => expect(window.location.pathname).toBe('/app/certification/bank'));
  });

  it('disables the change while a loan is open, saying why, with the way to the loan', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/certification/bank': () =>
        ok({
          step: 'bank',
          certStatus: 'done',
          completedAt: 1,
          data: { bankCode: 'HDFC', accountNumber: '**** **** 4567', ifsc: 'HDFC0001234' },
          bankLockedBy: 'KL-261127-0001',
        }),
      'GET /api/v1/borrower/enums': () => ok({ banks: [{ code: 'HDFC', label: 'HDFC Bank' }] }),
    });
    api.signIn();
    renderBorrower('/app/bank-card?lang=1');
    const change = await screen.findByRole('button', { name: 'Change bank account' });
    expect(change).toBeDisabled();
    const reason = 'Your bank account cannot change while loan KL-261127-0001 is open. You can change it once the loan is repaid or closed.';
    expect(screen.getByRole('note')).toHaveTextContent(reason);
    expect(change).toHaveAttribute('aria-describedby', 'bank-card-locked');
    expect(within(screen.getByRole('note')).getByRole('link', { name: 'See the loan' })).toHaveAttribute('href', '/app/orders/KL-261127-0001');
  });

  it('says so in Indonesian', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/certification/bank': () =>
        ok({ step: 'bank', certStatus: 'done', completedAt: 1, data: { bankCode: '014', accountNumber: '******7890', ifsc: null }, bankLockedBy: 'KL-261127-0002' }),
      'GET /api/v1/borrower/enums': () => ok({ banks: [{ code: '014', label: 'BCA' }] }),
    });
    api.signIn();
    renderBorrower('/app/bank-card');
    expect(await screen.findByRole('button', { name: 'Ganti rekening bank' })).toBeDisabled();
    expect(screen.getByRole('note')).toHaveTextContent('Rekening bank tidak dapat diganti selama pinjaman KL-261127-0002 masih berjalan.');
    expect(screen.getByRole('link', { name: 'Lihat pinjaman' })).toHaveAttribute('href', '/app/orders/KL-261127-0002');
  });

  it('says when there is no account yet', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/certification/bank': () => ok({ step: 'bank', certStatus: 'todo', completedAt: null, data: null }),
    });
    api.signIn();
    renderBorrower('/app/bank-card?lang=1');
    expect(await screen.findByText('No bank account yet')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Add a bank account' })).toBeInTheDocument();
  });
});
