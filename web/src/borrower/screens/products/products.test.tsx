import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi, ok, refusal, renderBorrower } from '@/test/render-borrower';
import { KFS_ID, KFS_ID_V4, KFS_IN, KFS_IN_EMI, KFS_IN_V3, KFS_IN_V4, PRODUCT_ID, PRODUCT_IN, PRODUCT_IN_EMI } from './fixtures.test-data';

// Intl puts a no-break space in some formats (Rp 1.000.000); the page text is compared with plain spaces.
const text = (element: HTMLElement) => element.textContent?.replace(/\s+/g, ' ').trim() ?? '';

describe('products screen', () => {
  it('lists the market’s products with rupee amounts, terms and the sample cost', async () => {
    const api = fakeApi({ 'GET /api/v1/borrower/products': () => ok([PRODUCT_IN, PRODUCT_IN_EMI]) });
    api.signIn();
    renderBorrower('/app/products?lang=1');
    expect(screen.getByText('Loading…')).toBeInTheDocument();

    const flexi = await screen.findByRole('article', { name: 'Flexi 6 Weeks' });
    expect(text(flexi)).toContain('₹5,000 to ₹40,000');
    expect(text(flexi)).toContain('Terms: 14 days × 3');
    expect(text(flexi)).toContain('For example, ₹5,000 over 14 days × 3: you repay ₹5,168 in total.');
    expect(text(flexi)).toContain('APR 83.88%');
    expect(within(flexi).getByRole('link', { name: 'Flexi 6 Weeks' })).toHaveAttribute('href', '/app/products/in-flexi-14d');

    const emi = screen.getByRole('article', { name: 'Flexi EMI' });
    expect(text(emi)).toContain('₹10,000 to ₹80,000');
    expect(text(emi)).toContain('Terms: 3 months · 6 months');
    expect(text(emi)).toContain('₹10,402.61');
    expect(screen.getByRole('link', { name: 'My account' })).toHaveAttribute('href', '/app/me');
  });

  it('shows rupiah amounts in Indonesian for Indonesia', async () => {
    fakeApi({ 'GET /api/v1/borrower/products': () => ok([PRODUCT_ID]) }).signIn();
    renderBorrower('/app/products?lang=2');
    const card = await screen.findByRole('article', { name: 'Kilat 30' });
    expect(text(card)).toContain('Rp 1.000.000 sampai Rp 5.000.000');
    expect(text(card)).toContain('Tenor: 14 hari · 30 hari');
    expect(text(card)).toContain('APR 100,07%');
  });

  it('has an empty state and an error state with a retry', async () => {
    let answer: () => Response = () => refusal(503, 'internal', 'Service unavailable.');
    fakeApi({ 'GET /api/v1/borrower/products': () => answer() }).signIn();
    const user = userEvent.setup();
    renderBorrower('/app/products?lang=1');
    expect(await screen.findByRole('alert')).toHaveTextContent('The loans could not be loaded.');
    answer = () => ok([]);
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { name: 'No loans on offer' })).toBeInTheDocument();
  });
});

describe('product screen', () => {
  it('quotes the chosen amount and term and shows the APR', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/products/in-flexi-6m': () => ok(PRODUCT_IN_EMI),
      'POST /api/v1/borrower/quote': (call) => {
        const body = call.body as { amount: number; termCode: string };
        return ok({ ...KFS_IN, productCode: 'in-flexi-6m', sanctionedAmount: body.amount, termCode: body.termCode, apr: body.termCode === 'm3' ? 3012 : 2450 });
      },
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/products/in-flexi-6m?lang=1');

    expect(await screen.findByRole('heading', { level: 1, name: 'Flexi EMI' })).toBeInTheDocument();
    expect(await screen.findByText('30.12%')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/borrower/quote')[0]!.body).toEqual({ productCode: 'in-flexi-6m', amount: 1000000, termCode: 'm3' });

    await user.click(screen.getByRole('button', { name: 'More (₹1,000)' }));
    await user.click(screen.getByRole('button', { name: 'More (₹1,000)' }));
    fireEvent.change(screen.getByLabelText('How much do you need?'), { target: { value: '2500000' } });
    await user.click(screen.getByRole('radio', { name: '6 months' }));
    expect(screen.getByText('₹25,000')).toBeInTheDocument();

    expect(await screen.findByText('24.50%')).toBeInTheDocument();
    // Debounced: the intermediate amounts were never quoted.
    const quoted = api.callsTo('POST', '/api/v1/borrower/quote').map((call) => call.body);
    expect(quoted).toEqual([
      { productCode: 'in-flexi-6m', amount: 1000000, termCode: 'm3' },
      { productCode: 'in-flexi-6m', amount: 2500000, termCode: 'm6' },
    ]);
    // One precision for the product: paise on every figure, as the schedule has them.
    expect(screen.getByText('Paid out to you').nextSibling).toHaveTextContent(/^₹5,823\.00$/);
    expect(screen.getByText('Total you repay').nextSibling).toHaveTextContent('₹6,201.60');
    // The installments as the schedule is: two of one amount, then the last.
    expect(screen.getByText('3 installments: 2 of ₹2,067.00, then 1 of ₹2,067.60')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Apply' })).toHaveAttribute('href', '/app/products/in-flexi-6m/kfs?amount=2500000&term=m6');
    expect(window.location.search).toBe('?amount=2500000&term=m6');
  });

  it('keeps the room of the figures while the first quote comes, so Apply below does not move when it arrives', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/products/in-flexi-6m': () => ok(PRODUCT_IN_EMI),
      'POST /api/v1/borrower/quote': () => new Promise<Response>(() => undefined),
    });
    api.signIn();
    renderBorrower('/app/products/in-flexi-6m?lang=1');

    const quote = await screen.findByRole('region', { name: 'What it costs' });
    expect(within(quote).getByRole('status')).toHaveTextContent('Loading…');
    // The summary's rows, their labels and a place for each figure, hidden from screen readers until the figures come.
    const rows = [...quote.querySelectorAll('dl[aria-hidden="true"] > div')];
    expect(rows.map((row) => row.querySelector('dt')?.textContent)).toEqual([
      'Annual percentage rate (APR)',
      'Paid out to you',
      'Total fees',
      'Total interest',
      'Total you repay',
    ]);
    expect(rows.every((row) => row.querySelector('dd .figure-placeholder'))).toBe(true);
    expect(quote.querySelector('.quote__installments--placeholder')).not.toBeNull();
    expect(screen.getByRole('link', { name: 'Apply' })).toBeInTheDocument();
  });

  it('quotes at the precision the statement and the loan keep, paise in an installment’s parts included', async () => {
    // Whole installments and totals; only the reducing interest splits an installment into paise.
    const installments = [
      { number: 1, dueDate: '2026-12-27', principal: 326800, interest: 20000, fees: 0, amount: 346800 },
      { number: 2, dueDate: '2027-01-27', principal: 333336, interest: 13464, fees: 0, amount: 346800 },
      { number: 3, dueDate: '2027-02-27', principal: 339864, interest: 6936, fees: 0, amount: 346800 },
    ];
    fakeApi({
      'GET /api/v1/borrower/products/in-flexi-6m': () => ok(PRODUCT_IN_EMI),
      'POST /api/v1/borrower/quote': () => ok({ ...KFS_IN_EMI, installments, totalInterest: 40400, totalRepayable: 1040400 }),
    }).signIn();
    renderBorrower('/app/products/in-flexi-6m?lang=1');
    expect(await screen.findByText('3 installments of ₹3,468.00')).toBeInTheDocument();
    expect(screen.getByText('Total you repay').nextSibling).toHaveTextContent(/^₹10,404\.00$/);
  });

  it('shows the server’s field error under the amount', async () => {
    fakeApi({
      'GET /api/v1/borrower/products/in-flexi-14d': () => ok(PRODUCT_IN),
      'POST /api/v1/borrower/quote': () =>
        refusal(422, 'validation_failed', 'Some fields need fixing.', { fields: { amount: 'The amount goes up in steps of ₹1,000.' } }),
    }).signIn();
    renderBorrower('/app/products/in-flexi-14d?lang=1');
    const error = await screen.findByText('The amount goes up in steps of ₹1,000.');
    expect(screen.getByLabelText('How much do you need?')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('How much do you need?')).toHaveAttribute('aria-describedby', error.id);
    expect(screen.getByRole('alert')).toHaveTextContent('Some fields need fixing.');
  });

  it('keeps Apply off while the amount is refused or being quoted, with the reason by the amount, and on for one the server quotes', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/products/in-flexi-14d': () => ok(PRODUCT_IN),
      'POST /api/v1/borrower/quote': (call) => {
        const { amount } = call.body as { amount: number };
        return amount > 3000000
          ? refusal(422, 'validation_failed', 'Some fields need fixing.', { fields: { amount: 'You can borrow up to ₹30,000 now.' } })
          : ok({ ...KFS_IN, sanctionedAmount: amount });
      },
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/products/in-flexi-14d?amount=3100000&term=14dx3&lang=1');

    const reason = await screen.findByText('You can borrow up to ₹30,000 now.');
    const slider = screen.getByLabelText('How much do you need?');
    expect(slider).toHaveAttribute('aria-describedby', reason.id);
    const refused = screen.getByRole('link', { name: 'Apply' });
    expect(refused).toHaveAttribute('aria-disabled', 'true');
    expect(refused).not.toHaveAttribute('href');
    expect(refused).toHaveAccessibleDescription('This amount or term cannot be offered. Choose another to apply.');
    await user.click(refused);
    expect(window.location.pathname).toBe('/app/products/in-flexi-14d');

    // Another amount: off while it is quoted, then on with it.
    await user.click(screen.getByRole('button', { name: 'Less (₹1,000)' }));
    expect(screen.getByRole('link', { name: 'Apply' })).toHaveAttribute('aria-disabled', 'true');
    expect(screen.queryByText('You can borrow up to ₹30,000 now.')).toBeNull();
    await waitFor(() =>
      expect(screen.getByRole('link', { name: 'Apply' })).toHaveAttribute('href', '/app/products/in-flexi-14d/kfs?amount=3000000&term=14dx3'),
    );
    expect(screen.getByRole('link', { name: 'Apply' })).not.toHaveAttribute('aria-disabled');
    expect(slider).not.toHaveAttribute('aria-invalid');
    expect(screen.getByText('Next you read the Key Fact Statement. Nothing is final until you accept it and confirm.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/borrower/quote').map((call) => (call.body as { amount: number }).amount)).toEqual([3100000, 3000000]);
  });

  it('keeps Apply off for a refused term, in Indonesian, until another term is quoted', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/products/id-kilat-30': () => ok(PRODUCT_ID),
      'POST /api/v1/borrower/quote': (call) =>
        (call.body as { termCode: string }).termCode === '30d'
          ? refusal(422, 'validation_failed', 'Ada isian yang perlu diperbaiki.', { fields: { termCode: 'Tenor ini belum tersedia untuk Anda.' } })
          : ok({ ...KFS_ID, termCode: '14d' }),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/products/id-kilat-30?amount=100000000&term=30d&lang=2');

    expect(await screen.findByText('Tenor ini belum tersedia untuk Anda.')).toBeInTheDocument();
    // The server writes its reasons in the language it is asked in.
    expect(api.callsTo('POST', '/api/v1/borrower/quote')[0]!.headers['Accept-Language']).toBe('id-ID');
    expect(screen.getByRole('link', { name: 'Ajukan' })).not.toHaveAttribute('href');
    expect(screen.getByText('Jumlah atau tenor ini tidak dapat ditawarkan. Pilih yang lain untuk mengajukan.')).toBeInTheDocument();

    await user.click(screen.getByRole('radio', { name: '14 hari' }));
    await waitFor(() => expect(screen.getByRole('link', { name: 'Ajukan' })).toHaveAttribute('href', '/app/products/id-kilat-30/kfs?amount=100000000&term=14d'));
    expect(screen.queryByText('Tenor ini belum tersedia untuk Anda.')).toBeNull();
  });

  it('keeps Apply off while the quote could not be had, and on once it is', async () => {
    let fail = true;
    fakeApi({
      'GET /api/v1/borrower/products/in-flexi-14d': () => ok(PRODUCT_IN),
      'POST /api/v1/borrower/quote': () => (fail ? refusal(503, 'internal', 'Service unavailable.') : ok(KFS_IN)),
    }).signIn();
    const user = userEvent.setup();
    renderBorrower('/app/products/in-flexi-14d?lang=1');
    expect(await screen.findByText('Service unavailable.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Apply' })).toHaveAccessibleDescription('You can apply once the cost is shown.');
    expect(screen.getByRole('link', { name: 'Apply' })).not.toHaveAttribute('href');
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(screen.getByRole('link', { name: 'Apply' })).toHaveAttribute('href', '/app/products/in-flexi-14d/kfs?amount=500000&term=14dx3'));
  });

  it('says so when the product is not on offer', async () => {
    fakeApi().signIn();
    renderBorrower('/app/products/nope?lang=1');
    expect(await screen.findByText('This loan is not on offer.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'See the loans on offer' })).toHaveAttribute('href', '/app/products');
  });
});

describe('Key Fact Statement screen', () => {
  it('shows the statement of the amount and term in the URL, every installment and the lender', async () => {
    const api = fakeApi({ 'POST /api/v1/borrower/apply': () => ok(KFS_IN) });
    api.signIn();
    renderBorrower('/app/products/in-flexi-14d/kfs?amount=600000&term=14dx3&lang=1');

    expect(await screen.findByText('83.87%')).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1, name: 'Key Fact Statement' })).toBeInTheDocument();
    // Applying checks the borrower may apply before the statement is read; a bare quote would not.
    expect(api.callsTo('POST', '/api/v1/borrower/apply')[0]!.body).toEqual({ productCode: 'in-flexi-14d', amount: 600000, termCode: '14dx3' });
    expect(api.callsTo('POST', '/api/v1/borrower/quote')).toHaveLength(0);
    // Before any decision nothing is "sanctioned": the statement names the loan amount.
    // The statement has paise (₹201.60 of interest): every amount of it shows two decimals.
    expect(screen.getByText('Loan amount').nextSibling).toHaveTextContent('₹6,000.00');
    expect(screen.queryByText(/sanctioned/i, { selector: 'dt' })).toBeNull();
    expect(screen.getByText(/The APR is the yearly cost of everything you pay for the loan/)).toHaveTextContent('It is not the interest rate.');
    expect(screen.getByText('₹150.00 + GST ₹27.00')).toBeInTheDocument();
    expect(screen.getByText('Paid out to you').nextSibling).toHaveTextContent('₹5,823.00');
    expect(screen.getByText('Total interest').nextSibling).toHaveTextContent('₹201.60');
    expect(screen.getByText('Total you repay').nextSibling).toHaveTextContent('₹6,201.60');

    const rows = within(screen.getByRole('table')).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell').slice(0, 2).map(text))).toEqual([
      ['1', '6 Dec 2026'],
      ['2', '20 Dec 2026'],
      ['3', '3 Jan 2027'],
    ]);
    expect(text(rows[2]!)).toContain('₹2,067.60');

    expect(screen.getByText(/₹400\.00 once for each installment paid late\. Late charges can never add up to more than ₹1,200\.00\./)).toBeInTheDocument();
    expect(screen.getByText(/For 3 days after the money reaches you/)).toBeInTheDocument();
    expect(screen.getByText('Kilat Finance Private Limited (NBFC)')).toBeInTheDocument();
    expect(screen.getByText(/Priya Raman/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'grievance@kilat.example' })).toHaveAttribute('href', 'mailto:grievance@kilat.example');
    expect(screen.getByRole('link', { name: '+91 80 4000 1299' })).toHaveAttribute('href', 'tel:+918040001299');
    expect(screen.getByRole('checkbox', { name: 'I have read the Key Fact Statement and the loan agreement above, and I accept both' })).not.toBeChecked();
    expect(screen.getByRole('button', { name: 'Confirm' })).toBeDisabled();
  });

  it('shows a fee without a tax line when it carries no tax (Indonesia)', async () => {
    const kfs = { ...KFS_ID, fees: [{ name: 'Biaya layanan', amount: 5_000_000, tax: 0, total: 5_000_000 }] };
    fakeApi({ 'POST /api/v1/borrower/apply': () => ok(kfs) }).signIn();
    renderBorrower('/app/products/id-kilat-30/kfs?amount=100000000&term=30d');
    const fee = await screen.findByText('Biaya layanan');
    expect(fee.closest('.figures__row')).toHaveTextContent(/^Biaya layananRp\s50\.000$/);
    expect(screen.queryByText(/pajak/)).not.toBeInTheDocument();
  });

  it('shows the lender with its OJK licence line and the Pejabat Pengaduan (Indonesia, version 2)', async () => {
    const kfs = {
      ...KFS_IN,
      version: 2,
      market: 'ID',
      currency: 'IDR',
      lender: {
        name: 'PT Kilat Dana Indonesia',
        licence: 'Berizin dan diawasi oleh Otoritas Jasa Keuangan (OJK), nomor izin KEP-00/D.05/2026 (contoh)',
        grievanceOfficer: { name: 'Dewi Lestari', email: 'pengaduan@id.kilat.example', phone: '+62 21 0000 0199' },
      },
    };
    fakeApi({ 'POST /api/v1/borrower/apply': () => ok(kfs) }).signIn();
    renderBorrower('/app/products/id-kilat-30/kfs?amount=100000000&term=30d');
    const lender = (await screen.findByRole('heading', { level: 2, name: 'Pemberi pinjaman' })).closest('section')!;
    expect(within(lender).getByText('PT Kilat Dana Indonesia')).toBeInTheDocument();
    expect(within(lender).getByText(kfs.lender.licence)).toBeInTheDocument();
    expect(within(lender).getByRole('heading', { level: 3, name: 'Pejabat Pengaduan' })).toBeInTheDocument();
    expect(text(lender)).not.toMatch(/Kilat Finance|Priya|\+91/);
  });

  it('states the prepayment terms of a version-3 statement, and none for an earlier one', async () => {
    let kfs: object = KFS_IN_V3;
    fakeApi({ 'POST /api/v1/borrower/apply': () => ok(kfs) }).signIn();
    const first = renderBorrower('/app/products/in-flexi-14d/kfs?amount=600000&term=14dx3&lang=1');
    const heading = await screen.findByRole('heading', { level: 3, name: 'Repaying early' });
    expect(heading.nextSibling).toHaveTextContent(/^You may repay the whole loan at any time without a prepayment charge: .* is credited\.$/);
    // India has no daily cap: no daily cost section.
    expect(screen.queryByRole('heading', { name: 'Daily cost' })).toBeNull();
    first.unmount();

    kfs = KFS_IN;
    renderBorrower('/app/products/in-flexi-14d/kfs?amount=600000&term=14dx3&lang=1');
    await screen.findByText('83.87%');
    expect(screen.queryByRole('heading', { name: 'Repaying early' })).toBeNull();
  });

  it('shows the Indonesian statement in Indonesian numbers, its daily cost against the OJK cap and its prepayment terms', async () => {
    fakeApi({ 'POST /api/v1/borrower/apply': () => ok(KFS_ID) }).signIn();
    renderBorrower('/app/products/id-kilat-30/kfs?amount=100000000&term=d30');
    const apr = await screen.findByText('88,47%');
    expect(apr.closest('p')).toHaveTextContent('Biaya tahunan total (APR) 88,47%');
    expect(screen.getByText(/APR adalah biaya tahunan dari semua yang Anda bayar/)).toHaveTextContent('APR bukan suku bunga.');
    expect(screen.queryByText(/bunga tahunan/)).toBeNull();
    expect(screen.getByText('Jumlah pinjaman').nextSibling).toHaveTextContent(/^Rp\s1\.000\.000$/);
    expect(screen.queryByText(/disetujui/, { selector: 'dt' })).toBeNull();
    expect(screen.getByText('Bunga').nextSibling).toHaveTextContent('0,2% per hari, atas jumlah pinjaman');

    const daily = screen.getByRole('heading', { level: 2, name: 'Biaya harian' }).closest('section')!;
    expect(within(daily).getByText('Biaya per hari (bunga dan biaya)').nextSibling).toHaveTextContent(/^Rp\s2\.333,34 per hari, 0,233% dari jumlah pinjaman$/);
    expect(within(daily).getByText('Batas harian OJK').nextSibling).toHaveTextContent('0,3% dari jumlah pinjaman per hari');
    expect(daily).toHaveTextContent(/Selama 30 hari, pinjaman ini berbiaya Rp\s70\.000 \(bunga dan biaya\) atas Rp\s1\.000\.000; batasnya paling banyak Rp\s90\.000\./);

    const early = screen.getByRole('heading', { level: 3, name: 'Pelunasan dipercepat' });
    expect(early.nextSibling).toHaveTextContent(/^Anda dapat melunasi seluruh pinjaman kapan saja tanpa biaya pelunasan dipercepat/);
  });

  it('states the extension: its days, its fee on this loan with the rule and GST, and how many times', async () => {
    let kfs: object = KFS_IN_V4;
    fakeApi({ 'POST /api/v1/borrower/apply': () => ok(kfs) }).signIn();
    const first = renderBorrower('/app/products/in-flexi-14d/kfs?amount=600000&term=14dx3&lang=1');
    const heading = await screen.findByRole('heading', { level: 3, name: 'Moving a due date (extension)' });
    expect(text(heading.nextSibling as HTMLElement)).toBe(
      'You may move a due date by 7 days, once over the loan, for a fee of ₹141.60 (2% of the loan amount plus GST ₹21.60), paid when you move it. No interest is added for the extra days.',
    );
    first.unmount();

    // A statement sealed before version 4 has the rule, not the amount: the rule alone.
    kfs = KFS_IN_V3;
    const second = renderBorrower('/app/products/in-flexi-14d/kfs?amount=600000&term=14dx3&lang=1');
    const older = await screen.findByRole('heading', { level: 3, name: 'Moving a due date (extension)' });
    expect(text(older.nextSibling as HTMLElement)).toBe(
      'You may move a due date by 7 days, once over the loan, for a fee of 2% of the loan amount, paid when you move it. No interest is added for the extra days.',
    );
    second.unmount();

    kfs = KFS_ID_V4;
    const third = renderBorrower('/app/products/id-kilat-30/kfs?amount=100000000&term=d30&lang=2');
    const id = await screen.findByRole('heading', { level: 3, name: 'Perpanjangan jatuh tempo' });
    expect(text(id.nextSibling as HTMLElement)).toBe(
      'Anda dapat menggeser tanggal jatuh tempo 7 hari, paling banyak 2 kali selama pinjaman, dengan biaya Rp 10.000 setiap kali (1% dari jumlah pinjaman), dibayar saat digeser. Tidak ada bunga tambahan untuk hari-hari tambahan itu.',
    );
    third.unmount();

    // A product without one says so.
    kfs = KFS_ID;
    renderBorrower('/app/products/id-kilat-30/kfs?amount=100000000&term=d30&lang=2');
    const none = await screen.findByRole('heading', { level: 3, name: 'Perpanjangan jatuh tempo' });
    expect(none.nextSibling).toHaveTextContent('Pinjaman ini tidak menawarkan perpanjangan: tanggal jatuh temponya tidak dapat digeser.');
  });

  it('names the fees an installment carries when the product does not deduct them at payout, and only then', async () => {
    // Not deducted: ₹177.00 of fees with GST come with the first installment, so its parts add up to it.
    let kfs: object = {
      ...KFS_IN,
      feesDeductedAtDisbursal: false,
      netDisbursed: 600000,
      totalRepayable: 637860,
      installments: [{ ...KFS_IN.installments[0]!, fees: 17700, amount: 224400 }, ...KFS_IN.installments.slice(1)],
    };
    fakeApi({ 'POST /api/v1/borrower/apply': () => ok(kfs) }).signIn();
    const first = renderBorrower('/app/products/in-flexi-14d/kfs?amount=600000&term=14dx3&lang=1');
    await screen.findByText('83.87%');
    const split = (row: HTMLElement) => text(row.querySelector('.figures__sub') as HTMLElement);
    const rows = within(screen.getByRole('table')).getAllByRole('row').slice(1);
    expect(text(rows[0]!)).toContain('₹2,244.00');
    expect(rows.map(split)).toEqual([
      'principal ₹1,999.80, interest ₹67.20, fees ₹177.00',
      'principal ₹1,999.80, interest ₹67.20',
      'principal ₹2,000.40, interest ₹67.20',
    ]);
    first.unmount();

    kfs = {
      ...KFS_ID,
      feesDeductedAtDisbursal: false,
      netDisbursed: 100000000,
      totalRepayable: 107000000,
      installments: [{ ...KFS_ID.installments[0]!, fees: 1000000, amount: 107000000 }],
    };
    const second = renderBorrower('/app/products/id-kilat-30/kfs?amount=100000000&term=d30&lang=2');
    await screen.findByText('88,47%');
    const cicil = within(screen.getByRole('table')).getAllByRole('row').slice(1);
    expect(cicil.map(split)).toEqual(['pokok Rp 1.000.000, bunga Rp 60.000, biaya Rp 10.000']);
    second.unmount();

    // Deducted at payout: no installment carries fees, and none names them.
    kfs = KFS_ID;
    renderBorrower('/app/products/id-kilat-30/kfs?amount=100000000&term=d30&lang=2');
    await screen.findByText('88,47%');
    const plain = within(screen.getByRole('table')).getAllByRole('row').slice(1);
    expect(plain.map(split)).toEqual(['pokok Rp 1.000.000, bunga Rp 60.000']);
  });

  it('states no cap and no interest rule on late charges when there is no late charge', async () => {
    let kfs: object = { ...KFS_IN, lateCharge: { flat: 0, perDay: 0, maxDays: 0 }, maxLateCharges: 0 };
    fakeApi({ 'POST /api/v1/borrower/apply': () => ok(kfs) }).signIn();
    const first = renderBorrower('/app/products/in-flexi-14d/kfs?amount=600000&term=14dx3&lang=1');
    const late = await screen.findByRole('heading', { level: 3, name: 'Late charges' });
    expect(text(late.nextSibling as HTMLElement)).toBe('No late charge.');
    expect(screen.queryByText(/can never add up to more than/)).toBeNull();
    expect(screen.queryByText(/No interest is ever charged on late charges/)).toBeNull();
    first.unmount();

    kfs = { ...KFS_ID, lateCharge: { flat: 0, perDay: 0, maxDays: 0 }, maxLateCharges: 0 };
    const second = renderBorrower('/app/products/id-kilat-30/kfs?amount=100000000&term=d30&lang=2');
    const denda = await screen.findByRole('heading', { level: 3, name: 'Denda keterlambatan' });
    expect(text(denda.nextSibling as HTMLElement)).toBe('Tidak ada denda keterlambatan.');
    expect(screen.queryByText(/tidak pernah melebihi/)).toBeNull();
    expect(screen.queryByText(/Bunga tidak pernah dikenakan atas denda/)).toBeNull();
    second.unmount();

    // With a late charge, the cap and the rule follow it.
    kfs = KFS_ID;
    renderBorrower('/app/products/id-kilat-30/kfs?amount=100000000&term=d30&lang=2');
    const charged = await screen.findByRole('heading', { level: 3, name: 'Denda keterlambatan' });
    expect(text(charged.nextSibling as HTMLElement)).toBe(
      'Rp 50.000 satu kali untuk setiap cicilan yang terlambat. Seluruh denda keterlambatan tidak pernah melebihi Rp 50.000. Bunga tidak pernah dikenakan atas denda atau atas bunga.',
    );
  });

  it('asks for an amount and term when the URL has none', async () => {
    const api = fakeApi();
    api.signIn();
    renderBorrower('/app/products/in-flexi-14d/kfs?lang=1');
    expect(await screen.findByText('Choose an amount and a term first.')).toBeInTheDocument();
    await waitFor(() => expect(api.callsTo('POST', '/api/v1/borrower/apply')).toHaveLength(0));
  });
});

describe('the installments as the schedule has them', () => {
  it('lists unequal amounts in order, in Indonesian, and says equal ones once', async () => {
    const { scheduleSummary, moneyAtPrecision } = await import('./format');
    const { borrowerI18n } = await import('@/test/borrower-i18n');
    const { MARKETS } = await import('@/shared/market/market');
    const id = borrowerI18n('id');
    const rp = moneyAtPrecision([181666700, 182166700, 182166600], MARKETS.id);
    const cicil = [
      { amount: 181666700, dueDate: '2026-12-27' },
      { amount: 182166700, dueDate: '2027-01-27' },
      { amount: 182166600, dueDate: '2027-02-27' },
    ];
    expect(scheduleSummary(cicil, rp, id.t, MARKETS.id).replace(/\u00a0/g, ' ')).toBe(
      '3 cicilan: Rp 1.816.667, Rp 1.821.667 dan Rp 1.821.666',
    );
    const equal = cicil.map((i) => ({ ...i, amount: 181666700 }));
    expect(scheduleSummary(equal, rp, id.t, MARKETS.id).replace(/\u00a0/g, ' ')).toBe('3 cicilan sebesar Rp 1.816.667');
    const en = borrowerI18n('en');
    const emi = [...Array.from({ length: 11 }, () => ({ amount: 400000, dueDate: '2027-01-01' })), { amount: 399061, dueDate: '2027-12-01' }];
    const inr = moneyAtPrecision(emi.map((i) => i.amount), MARKETS.in);
    expect(scheduleSummary(emi, inr, en.t, MARKETS.in)).toBe('12 installments: 11 of ₹4,000.00, then 1 of ₹3,990.61');
  });
});
