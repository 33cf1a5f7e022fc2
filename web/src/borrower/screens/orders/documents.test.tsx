import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { fakeApi, ok, renderBorrower } from '@/test/render-borrower';
import { KFS_ID } from '../products/fixtures.test-data';
import { ORDER_DETAIL, ORDER_DISBURSED } from './fixtures.test-data';

const ORDER = '/api/v1/borrower/orders/KL-261123-7F3K9Q';

describe('a loan’s documents', () => {
  it('offer the no-dues certificate once the loan is repaid, in English', async () => {
    const repaid = { ...ORDER_DISBURSED, status: 'repaid' };
    fakeApi({ [`GET ${ORDER}`]: () => ok(repaid) }).signIn();
    renderBorrower('/app/orders/KL-261123-7F3K9Q?lang=1');
    const link = await screen.findByRole('link', { name: 'No-dues certificate (PDF)' });
    expect(link).toHaveAttribute('href', `${ORDER}/documents/no-dues.pdf`);
    expect(link).toHaveAttribute('download');
    expect(screen.getByText(/the lender's no-dues certificate states that you owe nothing on it/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Key Fact Statement (PDF)' })).toHaveAttribute('href', `${ORDER}/documents/kfs.pdf`);
  });

  it('offer the surat keterangan lunas after a cooling-off exit, and name the KFS in Indonesian', async () => {
    const exited = { ...ORDER_DISBURSED, currency: 'IDR', kfs: KFS_ID, status: 'exited_in_cooling_off' };
    fakeApi({ [`GET ${ORDER}`]: () => ok(exited) }).signIn();
    renderBorrower('/app/orders/KL-261123-7F3K9Q');
    const link = await screen.findByRole('link', { name: 'Surat keterangan lunas (PDF)' });
    expect(link).toHaveAttribute('href', `${ORDER}/documents/no-dues.pdf`);
    expect(screen.getByRole('link', { name: 'Ringkasan Informasi Pinjaman (PDF)' })).toHaveAttribute('href', `${ORDER}/documents/kfs.pdf`);
    expect(screen.queryByText(/Key Fact Statement/)).toBeNull();
  });

  it('offer no certificate while the loan is open or was never paid out', async () => {
    for (const order of [ORDER_DISBURSED, { ...ORDER_DISBURSED, status: 'overdue' }, ORDER_DETAIL, { ...ORDER_DETAIL, status: 'rejected' }]) {
      fakeApi({ [`GET ${ORDER}`]: () => ok(order) }).signIn();
      const { unmount } = renderBorrower('/app/orders/KL-261123-7F3K9Q?lang=1');
      await screen.findByRole('link', { name: 'Loan agreement (PDF)' });
      expect(screen.queryByRole('link', { name: /No-dues certificate/ })).toBeNull();
      unmount();
    }
  });
});
