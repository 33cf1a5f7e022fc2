import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { MARKETS } from '@/shared/market/market';
import { fakeApi, ok, refusal, renderBorrower } from '@/test/render-borrower';
import { HOME_ELIGIBLE } from '../home/fixtures.test-data';
import { KFS_ID } from '../products/fixtures.test-data';
import {
  AGREEMENT,
  OLDER_ORDER,
  ORDER_DETAIL,
  ORDER_DISBURSED,
  ORDER_ID,
  ORDER_PAID_OUT_LATER,
  ORDER_SUMMARY,
  planOf,
  REPAYMENT_DUE,
} from './fixtures.test-data';

const text = (element: Element) => element.textContent?.replace(/\s+/g, ' ').trim() ?? '';
// A loan's times are read on the market's clock (IST), whatever the device's time zone.
const at = (epochMs: number) =>
  new Intl.DateTimeFormat(MARKETS.in.locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Asia/Kolkata' }).format(new Date(epochMs));

describe('my loans', () => {
  it('lists the loans newest first with their status, amount, total repayable and date', async () => {
    fakeApi({ 'GET /api/v1/borrower/orders': () => ok([OLDER_ORDER, ORDER_SUMMARY]) }).signIn();
    const user = userEvent.setup();
    renderBorrower('/app/orders?lang=1');
    expect(screen.getByText('Loading…')).toBeInTheDocument();

    const cards = await screen.findAllByRole('article');
    expect(cards.map((card) => within(card).getByRole('link').textContent)).toEqual(['Flexi 6 WeeksKL-261123-7F3K9Q', 'Flexi EMIKL-260901-AAAAAA']);
    expect(text(cards[0]!)).toContain('Under review');
    expect(text(cards[0]!)).toContain('₹6,000');
    expect(text(cards[0]!)).toContain('Total you repay₹6,201.60');
    expect(text(cards[0]!)).toContain('Applied on22 Nov 2026');
    expect(text(cards[1]!)).toContain('Repaid');
    expect(text(cards[1]!)).toContain('Applied on1 Sept 2026');
    expect(within(cards[1]!).queryByText('Total you repay')).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'My loans', current: 'page' })).toBeInTheDocument();

    await user.click(within(cards[0]!).getByRole('link'));
    expect(window.location.pathname).toBe('/app/orders/KL-261123-7F3K9Q');
  });

  it('an ended loan (repaid, or left in cooling-off) does not show the plan’s total as what it cost; an open one does', async () => {
    const exited = { ...ORDER_SUMMARY, orderNo: 'KL-261124-EXITED', status: 'exited_in_cooling_off', createdAt: ORDER_SUMMARY.createdAt + 1000 };
    const open = { ...ORDER_SUMMARY, orderNo: 'KL-261125-OPENXX', status: 'disbursed', createdAt: ORDER_SUMMARY.createdAt + 2000 };
    fakeApi({ 'GET /api/v1/borrower/orders': () => ok([OLDER_ORDER, exited, open]) }).signIn();
    renderBorrower('/app/orders?lang=1');
    const cards = await screen.findAllByRole('article');
    expect(cards.map((card) => within(card).queryByText('Total you repay') !== null)).toEqual([true, false, false]);
    expect(text(cards[1]!)).toContain('₹6,000');
    expect(text(cards[1]!)).toContain('Applied on22 Nov 2026');
  });

  it('keeps the place of what an ended loan cost while it comes, so the cards below do not move; says so when it failed', async () => {
    const failed = { ...OLDER_ORDER, orderNo: 'KL-260801-BBBBBB', createdAt: OLDER_ORDER.createdAt - 1000 };
    let answerPlan: (answer: Response) => void = () => {};
    const api = fakeApi({
      'GET /api/v1/borrower/orders': () => ok([ORDER_SUMMARY, OLDER_ORDER, failed]),
      [`GET /api/v1/borrower/orders/${OLDER_ORDER.orderNo}/plan`]: () => new Promise<Response>((resolve) => (answerPlan = resolve)),
      [`GET /api/v1/borrower/orders/${failed.orderNo}/plan`]: () => refusal(404, 'not_found', 'Not found'),
    });
    api.signIn();
    renderBorrower('/app/orders?lang=1');
    const cards = await screen.findAllByRole('article');
    const paid = () => within(cards[1]!).getByText('What you paid').nextSibling as HTMLElement;
    // The row is there before its amount, holding one line.
    expect(paid()).toHaveTextContent('Loading…');
    expect(paid()).toHaveAttribute('aria-busy', 'true');
    await waitFor(() => expect(api.callsTo('GET', `/api/v1/borrower/orders/${OLDER_ORDER.orderNo}/plan`)).toHaveLength(1));
    await act(async () => answerPlan(ok({ paidInAll: 1075261 })));
    await waitFor(() => expect(paid()).toHaveTextContent('₹10,752.61'));
    expect(paid()).toHaveAttribute('aria-busy', 'false');
    expect(within(cards[2]!).getByText('What you paid').nextSibling).toHaveTextContent('Not available now');
  });

  it('has an empty state that leads to the loans on offer, and an error state with a retry', async () => {
    let answer = () => refusal(503, 'internal', 'Service unavailable.');
    fakeApi({ 'GET /api/v1/borrower/orders': () => answer() }).signIn();
    const user = userEvent.setup();
    renderBorrower('/app/orders?lang=1');
    expect(await screen.findByRole('alert')).toHaveTextContent('Your loans could not be loaded.');
    answer = () => ok([]);
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { level: 2, name: 'No loans yet' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'See the loans on offer' })).toHaveAttribute('href', '/app/products');
  });
});

describe('a loan', () => {
  it('shows its status, figures, APR, the accepted schedule, its history and a link to the agreement', async () => {
    fakeApi({ 'GET /api/v1/borrower/orders/KL-261123-7F3K9Q': () => ok(ORDER_DISBURSED) }).signIn();
    renderBorrower('/app/orders/KL-261123-7F3K9Q?lang=1');

    const head = (await screen.findByRole('heading', { level: 2, name: 'Flexi 6 Weeks' })).closest('section')!;
    expect(within(head).getByText('Paid out')).toHaveClass('status-badge--disbursed');
    expect(text(head)).toContain('Loan number KL-261123-7F3K9Q');

    expect(screen.getByText('Annual percentage rate (APR)').nextSibling).toHaveTextContent('83.87%');
    // Its statement has paise: every amount of the loan shows two decimals, as its schedule does.
    expect(screen.getByText('Amount sanctioned').nextSibling).toHaveTextContent('₹6,000.00');
    expect(screen.getByText('Paid out to you').nextSibling).toHaveTextContent('₹5,823.00');
    expect(screen.getByText('Total you repay').nextSibling).toHaveTextContent('₹6,201.60');

    const rows = within(screen.getByRole('table')).getAllByRole('row').slice(1);
    expect(rows.map((row) => within(row).getAllByRole('cell').map(text))).toEqual([
      ['1', '6 Dec 2026', '₹2,067.00principal ₹1,999.80, interest ₹67.20'],
      ['2', '20 Dec 2026', '₹2,067.00principal ₹1,999.80, interest ₹67.20'],
      ['3', '3 Jan 2027', '₹2,067.60principal ₹2,000.40, interest ₹67.20'],
    ]);

    const timeline = within(screen.getByRole('heading', { name: 'What has happened' }).closest('section')!).getAllByRole('listitem');
    expect(timeline.map(text)).toEqual([
      `Under review${at(ORDER_DISBURSED.timeline[0]!.at)}`,
      `Approved${at(ORDER_DISBURSED.timeline[1]!.at)}`,
      `Paid out${at(ORDER_DISBURSED.timeline[2]!.at)}`,
    ]);
    expect(screen.getByRole('link', { name: 'Loan agreement' })).toHaveAttribute('href', '/app/orders/KL-261123-7F3K9Q/agreement');
    expect(screen.getByRole('button', { name: 'Back' })).toBeInTheDocument();
  });

  it('draws a paid-out loan with what is due and its payments at once, never pushing the page down once it is on screen', async () => {
    const NO = ORDER_DISBURSED.orderNo;
    const answers: Record<string, (answer: Response) => void> = {};
    const held = (name: string) => () => new Promise<Response>((resolve) => (answers[name] = resolve));
    const api = fakeApi({
      [`GET /api/v1/borrower/orders/${NO}`]: () => ok(ORDER_DISBURSED),
      [`GET /api/v1/borrower/orders/${NO}/repayment`]: held('repayment'),
      [`GET /api/v1/borrower/orders/${NO}/payments`]: held('payments'),
      [`GET /api/v1/borrower/orders/${NO}/plan`]: held('plan'),
    });
    api.signIn();
    renderBorrower(`/app/orders/${NO}?lang=1`);
    // The loan has answered; its sections are asked at once, side by side, and nothing is drawn until each answered.
    await waitFor(() => expect(Object.keys(answers).sort()).toEqual(['payments', 'plan', 'repayment']));
    for (const name of ['repayment', 'payments']) {
      await act(async () => {
        answers[name]!(name === 'repayment' ? ok(REPAYMENT_DUE) : ok([]));
        await new Promise((resolve) => setTimeout(resolve, 50));
      });
      expect(screen.queryByRole('heading', { level: 2, name: 'Flexi 6 Weeks' })).toBeNull();
      expect(screen.getByText('Loading…')).toBeInTheDocument();
    }
    await act(async () => answers.plan!(ok({ installments: [] })));
    await screen.findByRole('heading', { level: 2, name: 'Flexi 6 Weeks' });
    // Drawn with the page, not after it.
    const repay = screen.getByRole('heading', { level: 2, name: 'Repay' }).closest('section')!;
    expect(repay).not.toHaveTextContent('Loading…');
    expect(text(repay)).toContain('₹2,072.00');
    for (const path of ['repayment', 'payments', 'plan']) {
      expect(api.callsTo('GET', `/api/v1/borrower/orders/${NO}/${path}`)).toHaveLength(1);
    }
  });

  it('draws a paid-out loan when what is due failed, with that section’s error, and does not ask again and again', async () => {
    const NO = ORDER_DISBURSED.orderNo;
    const api = fakeApi({
      [`GET /api/v1/borrower/orders/${NO}`]: () => ok(ORDER_DISBURSED),
      [`GET /api/v1/borrower/orders/${NO}/repayment`]: () => refusal(500, 'internal', 'Something went wrong.'),
    });
    api.signIn();
    renderBorrower(`/app/orders/${NO}?lang=1`);
    await screen.findByRole('heading', { level: 2, name: 'Flexi 6 Weeks' });
    expect(await screen.findByText('What you can repay could not be loaded.')).toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The page's question, and at most once more as the section mounts.
    expect(api.callsTo('GET', `/api/v1/borrower/orders/${NO}/repayment`).length).toBeLessThanOrEqual(2);
    expect(screen.getByRole('heading', { level: 2, name: 'Flexi 6 Weeks' })).toBeInTheDocument();
  });

  it('draws a declined application with whether the borrower may apply again, not after it', async () => {
    let answerHome: (answer: Response) => void = () => {};
    const api = fakeApi({
      [`GET /api/v1/borrower/orders/${ORDER_DETAIL.orderNo}`]: () => ok({ ...ORDER_DETAIL, status: 'rejected', rejectionReason: 'Income could not be verified.' }),
      'GET /api/v1/borrower/home': () => new Promise<Response>((resolve) => (answerHome = resolve)),
    });
    api.signIn();
    renderBorrower(`/app/orders/${ORDER_DETAIL.orderNo}?lang=1`);
    // The loan has answered and home is asked; nothing is drawn until home answered.
    await waitFor(() => expect(api.callsTo('GET', '/api/v1/borrower/home')).toHaveLength(1));
    await act(async () => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(screen.queryByRole('heading', { level: 2, name: 'Flexi 6 Weeks' })).toBeNull();
    await act(async () => answerHome(ok(HOME_ELIGIBLE)));
    await screen.findByRole('heading', { level: 2, name: 'Flexi 6 Weeks' });
    // In the same drawing as the page: the way to apply again sits above the way to complain.
    const after = screen.getByRole('link', { name: 'Think this decision is wrong? Make a complaint' }).closest('section')!;
    expect(within(after).getAllByRole('link').map((link) => link.textContent)).toEqual(['Borrow again', 'Think this decision is wrong? Make a complaint']);
  });

  it('after an extension, names it in the history and shows the due date it moved under the accepted schedule', async () => {
    const extended = {
      ...ORDER_DISBURSED,
      timeline: [
        ...ORDER_DISBURSED.timeline,
        { status: 'disbursed', at: Date.UTC(2026, 11, 1, 9, 0) },
        { status: 'overdue', at: Date.UTC(2026, 11, 21, 0, 5) },
        { status: 'disbursed', at: Date.UTC(2026, 11, 21, 10, 0) },
      ],
    };
    const installment = (seq: number, dueDate: string, plannedDueDate: string) => ({ seq, dueDate, plannedDueDate });
    fakeApi({
      'GET /api/v1/borrower/orders/KL-261123-7F3K9Q': () => ok(extended),
      'GET /api/v1/borrower/orders/KL-261123-7F3K9Q/plan': () =>
        ok({ installments: [installment(1, '2026-12-13', '2026-12-06'), installment(2, '2026-12-20', '2026-12-20'), installment(3, '2027-01-03', '2027-01-03')] }),
    }).signIn();
    renderBorrower('/app/orders/KL-261123-7F3K9Q?lang=1');
    expect(await screen.findByText('Installment 1 was extended: it is now due on 13 Dec 2026.')).toBeInTheDocument();
    expect(screen.queryByText(/Installment 2 was extended/)).toBeNull();
    const timeline = within(screen.getByRole('heading', { name: 'What has happened' }).closest('section')!).getAllByRole('listitem');
    expect(timeline.map((item) => item.querySelector('.timeline__status')!.textContent)).toEqual([
      'Under review',
      'Approved',
      'Paid out',
      'Due date extended',
      'Overdue',
      'Up to date again',
    ]);
  });

  describe('its schedule', () => {
    const NO = ORDER_PAID_OUT_LATER.orderNo;
    const scheduleRows = () => {
      const schedule = screen.getByRole('heading', { level: 2, name: 'Repayment schedule' }).closest('section')!;
      return within(schedule)
        .getAllByRole('row')
        .slice(1)
        .map((row) => within(row).getAllByRole('cell').map(text).slice(0, 2));
    };

    it('once paid out two days after the statement’s day, shows the plan’s due dates and says why they moved', async () => {
      const plan = planOf(ORDER_PAID_OUT_LATER, '2026-11-04', [
        ['2026-11-18', '2026-11-18'],
        ['2026-12-02', '2026-12-02'],
        ['2026-12-16', '2026-12-16'],
      ]);
      fakeApi({
        [`GET /api/v1/borrower/orders/${NO}`]: () => ok(ORDER_PAID_OUT_LATER),
        [`GET /api/v1/borrower/orders/${NO}/plan`]: () => ok(plan),
      }).signIn();
      renderBorrower(`/app/orders/${NO}?lang=1`);
      await screen.findByRole('heading', { level: 2, name: 'Flexi 6 Weeks' });

      // The dates the plan and the ledger have, not the statement's 16 Nov, 30 Nov and 14 Dec; the amounts unchanged.
      expect(scheduleRows()).toEqual([
        ['1', '18 Nov 2026'],
        ['2', '2 Dec 2026'],
        ['3', '16 Dec 2026'],
      ]);
      const schedule = screen.getByRole('heading', { level: 2, name: 'Repayment schedule' }).closest('section')!;
      expect(text(schedule)).toContain('₹2,067.00principal ₹1,999.80, interest ₹67.20');
      expect(schedule).not.toHaveTextContent('16 Nov 2026');
      expect(
        within(schedule).getByText(
          'Your loan was paid out on 4 Nov 2026, not on 2 Nov 2026 as in the Key Fact Statement you accepted, so each due date moved by 2 days; the amounts are the same.',
        ),
      ).toBeInTheDocument();
      // Not the note of a schedule still to be moved by the payout.
      expect(within(schedule).queryByText(/counted from/)).toBeNull();
      expect(within(schedule).queryByText(/was extended/)).toBeNull();
    });

    it('shows the due date an extension moved in the schedule, after the payout’s move', async () => {
      // Paid out on 4 Nov (18 Nov, 2 Dec, 16 Dec), then installment 1 extended by 7 days, and with it the later ones.
      const plan = {
        ...planOf(ORDER_PAID_OUT_LATER, '2026-11-04', [
          ['2026-11-25', '2026-11-18'],
          ['2026-12-09', '2026-12-02'],
          ['2026-12-23', '2026-12-16'],
        ]),
        extensionsGranted: 1,
      };
      fakeApi({
        [`GET /api/v1/borrower/orders/${NO}`]: () => ok(ORDER_PAID_OUT_LATER),
        [`GET /api/v1/borrower/orders/${NO}/plan`]: () => ok(plan),
      }).signIn();
      renderBorrower(`/app/orders/${NO}?lang=1`);
      await screen.findByRole('heading', { level: 2, name: 'Flexi 6 Weeks' });

      expect(scheduleRows()).toEqual([
        ['1', '25 Nov 2026'],
        ['2', '9 Dec 2026'],
        ['3', '23 Dec 2026'],
      ]);
      const schedule = screen.getByRole('heading', { level: 2, name: 'Repayment schedule' }).closest('section')!;
      // Both reasons: the payout moved each date by 2 days, the extension by 7 more.
      expect(schedule).toHaveTextContent('so each due date moved by 2 days; the amounts are the same.');
      expect(within(schedule).getByText('Installment 1 was extended: it is now due on 25 Nov 2026.')).toBeInTheDocument();
    });

    it('before payout shows the statement’s due dates and does not ask for a plan', async () => {
      const approved = { ...ORDER_PAID_OUT_LATER, status: 'approved', timeline: ORDER_PAID_OUT_LATER.timeline.slice(0, 2) };
      const api = fakeApi({ [`GET /api/v1/borrower/orders/${NO}`]: () => ok(approved) });
      api.signIn();
      renderBorrower(`/app/orders/${NO}?lang=1`);
      await screen.findByRole('heading', { level: 2, name: 'Flexi 6 Weeks' });

      expect(scheduleRows()).toEqual([
        ['1', '16 Nov 2026'],
        ['2', '30 Nov 2026'],
        ['3', '14 Dec 2026'],
      ]);
      expect(
        screen.getByText(
          'As in the Key Fact Statement you accepted, counted from 2 Nov 2026. The due dates follow the day the money is actually paid out; the amounts stay the same.',
        ),
      ).toBeInTheDocument();
      expect(screen.queryByText(/Your loan was paid out on/)).toBeNull();
      expect(api.callsTo('GET', `/api/v1/borrower/orders/${NO}/plan`)).toHaveLength(0);
    });

    it('says so when the plan’s due dates could not be loaded, and shows the statement’s meanwhile', async () => {
      fakeApi({
        [`GET /api/v1/borrower/orders/${NO}`]: () => ok(ORDER_PAID_OUT_LATER),
        [`GET /api/v1/borrower/orders/${NO}/plan`]: () => refusal(503, 'internal', 'Service unavailable.'),
      }).signIn();
      renderBorrower(`/app/orders/${NO}?lang=1`);
      await screen.findByRole('heading', { level: 2, name: 'Flexi 6 Weeks' });

      expect(scheduleRows()).toEqual([
        ['1', '16 Nov 2026'],
        ['2', '30 Nov 2026'],
        ['3', '14 Dec 2026'],
      ]);
      expect(
        screen.getByText(
          'Your current due dates could not be loaded. These are the dates in the Key Fact Statement; yours count from the day your loan was paid out.',
        ),
      ).toBeInTheDocument();
    });

    it('says in Indonesian why the due dates moved', async () => {
      const order = { ...ORDER_ID, orderNo: NO };
      const plan = planOf(order, '2026-11-24', [['2026-12-24', '2026-12-24']]);
      fakeApi({
        [`GET /api/v1/borrower/orders/${NO}`]: () => ok(order),
        [`GET /api/v1/borrower/orders/${NO}/plan`]: () => ok(plan),
      }).signIn();
      renderBorrower(`/app/orders/${NO}`);
      const schedule = (await screen.findByRole('heading', { level: 2, name: 'Jadwal pembayaran' })).closest('section')!;

      expect(within(schedule).getAllByRole('row').slice(1).map((row) => text(within(row).getAllByRole('cell')[1]!))).toEqual(['24 Des 2026']);
      expect(
        within(schedule).getByText(
          'Pinjaman Anda dicairkan pada 24 Nov 2026, bukan 22 Nov 2026 seperti dalam Ringkasan Informasi Pinjaman yang Anda setujui, sehingga setiap tanggal jatuh tempo bergeser 2 hari; jumlahnya tetap sama.',
        ),
      ).toBeInTheDocument();
    });
  });

  it('before any decision speaks of the amount applied for, says when a decision comes, and offers to withdraw', async () => {
    fakeApi({ 'GET /api/v1/borrower/orders/KL-261123-7F3K9Q': () => ok(ORDER_DETAIL) }).signIn();
    renderBorrower('/app/orders/KL-261123-7F3K9Q?lang=1');
    await screen.findByRole('heading', { level: 2, name: 'Flexi 6 Weeks' });
    expect(screen.getByText('Amount applied for').nextSibling).toHaveTextContent('₹6,000.00');
    expect(screen.getByText('Net amount, after fees').nextSibling).toHaveTextContent('₹5,823.00');
    expect(screen.queryByText('Paid out to you')).toBeNull();
    expect(screen.queryByText(/sanctioned/i)).toBeNull();
    expect(screen.queryByText(/paid out on/i)).toBeNull();
    expect(screen.getByText(/The due dates follow the day the money is actually paid out; the amounts stay the same\./)).toBeInTheDocument();
    expect(screen.getByText(/Under review: a reviewer checks applications in the order they arrive, and the lender aims to pay out within 2 hours/)).toHaveTextContent(
      'Nothing is paid out, and you owe nothing, until the loan is approved and paid out.',
    );
    expect(screen.getByRole('button', { name: 'Withdraw application' })).toBeInTheDocument();
    // The greeting of a new application is for the moment after confirm only.
    expect(screen.queryByRole('status', { name: 'Application sent' })).toBeNull();
  });

  it('withdraws an application after asking, and then shows it cancelled with nothing owed', async () => {
    const cancelled = { ...ORDER_DETAIL, status: 'cancelled', timeline: [...ORDER_DETAIL.timeline, { status: 'cancelled', at: ORDER_DETAIL.createdAt + 60_000 }] };
    const api = fakeApi({
      'GET /api/v1/borrower/orders/KL-261123-7F3K9Q': () => ok(ORDER_DETAIL),
      'POST /api/v1/borrower/orders/KL-261123-7F3K9Q/cancel': () => ok(cancelled),
    });
    api.signIn();
    // The kit's dialog animates in with pointer events off; a person waits for it, the test need not.
    const user = userEvent.setup({ pointerEventsCheck: 0 });
    renderBorrower('/app/orders/KL-261123-7F3K9Q?lang=1');
    await user.click(await screen.findByRole('button', { name: 'Withdraw application' }));

    // Keeping it sends nothing.
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('Withdraw this application?');
    expect(dialog).toHaveTextContent('The lender stops reviewing it and nothing is paid out.');
    await user.click(within(dialog).getByRole('button', { name: 'Keep it' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.callsTo('POST', '/api/v1/borrower/orders/KL-261123-7F3K9Q/cancel')).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Withdraw application' }));
    await user.click(await screen.findByRole('button', { name: 'Withdraw' }));
    expect(await screen.findByText('You withdrew this application. Nothing was paid out and you owe nothing.')).toBeInTheDocument();
    expect(api.callsTo('POST', '/api/v1/borrower/orders/KL-261123-7F3K9Q/cancel')).toHaveLength(1);
    const head = screen.getByRole('heading', { level: 2, name: 'Flexi 6 Weeks' }).closest('section')!;
    expect(within(head).getByText('Cancelled')).toHaveClass('status-badge--cancelled');
    expect(screen.queryByRole('button', { name: 'Withdraw application' })).toBeNull();
  });

  it('an order the lender withdrew because the bank would not pay it says so, with the reason, not that the borrower withdrew it', async () => {
    const withdrawn = {
      ...ORDER_DETAIL,
      status: 'cancelled',
      withdrawalReason: 'Your bank returned the transfer: the account is closed.',
      timeline: [...ORDER_DETAIL.timeline, { status: 'cancelled', at: ORDER_DETAIL.createdAt + 60_000 }],
    };
    fakeApi({ 'GET /api/v1/borrower/orders/KL-261123-7F3K9Q': () => ok(withdrawn) }).signIn();
    renderBorrower('/app/orders/KL-261123-7F3K9Q?lang=1');
    expect(await screen.findByText(/The lender could not pay this loan into your bank account and withdrew it/)).toBeInTheDocument();
    expect(screen.queryByText('You withdrew this application. Nothing was paid out and you owe nothing.')).toBeNull();
    const why = screen.getByRole('note');
    expect(within(why).getByRole('heading', { name: 'Why it could not be paid out' })).toBeInTheDocument();
    expect(why).toHaveTextContent('Your bank returned the transfer: the account is closed.');
    expect(screen.queryByRole('button', { name: 'Withdraw application' })).toBeNull();
  });

  it('says when it is too late to withdraw, and shows how the loan stands now', async () => {
    let current: object = { ...ORDER_DETAIL, status: 'approved' };
    fakeApi({
      'GET /api/v1/borrower/orders/KL-261123-7F3K9Q': () => ok(current),
      'POST /api/v1/borrower/orders/KL-261123-7F3K9Q/cancel': () => {
        current = ORDER_DISBURSED;
        return refusal(409, 'invalid_transition', 'This change is not possible now.');
      },
    }).signIn();
    const user = userEvent.setup({ pointerEventsCheck: 0 });
    renderBorrower('/app/orders/KL-261123-7F3K9Q?lang=1');
    // Approved: now the amount is sanctioned, and it may still be withdrawn.
    expect(await screen.findByText('Amount sanctioned')).toBeInTheDocument();
    expect(screen.getByText(/Approved: the lender is paying ₹5,823\.00 into your bank account\./)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Withdraw application' }));
    await user.click(await screen.findByRole('button', { name: 'Withdraw' }));
    expect(await screen.findByText(/Paid out: ₹5,823\.00 was sent to your bank account\./)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Withdraw application' })).toBeNull();
  });

  it('speaks Indonesian of the amount applied for, with a decimal comma, before any decision', async () => {
    const pending = {
      ...ORDER_DETAIL,
      currency: 'IDR',
      amount: 100000000,
      netDisbursed: 99000000,
      totalRepayable: 106000000,
      apr: 8847,
      aprDisplay: '88.47%',
      kfs: KFS_ID,
    };
    fakeApi({ 'GET /api/v1/borrower/orders/KL-261123-7F3K9Q': () => ok(pending) }).signIn();
    renderBorrower('/app/orders/KL-261123-7F3K9Q');
    await screen.findByRole('heading', { level: 2, name: 'Flexi 6 Weeks' });
    expect(screen.getByText('Jumlah yang diajukan').nextSibling).toHaveTextContent(/^Rp\s1\.000\.000$/);
    expect(screen.queryByText(/disetujui/, { selector: 'dt' })).toBeNull();
    expect(screen.queryByText('Jumlah pinjaman yang disetujui')).toBeNull();
    expect(screen.queryByText(/dicairkan pada/)).toBeNull();
    expect(screen.getByText('Biaya tahunan total (APR)').nextSibling).toHaveTextContent('88,47%');
    expect(screen.getByRole('button', { name: 'Batalkan pengajuan' })).toBeInTheDocument();
  });

  it('shows why a declined application was declined', async () => {
    const rejected = {
      ...ORDER_DETAIL,
      status: 'rejected',
      rejectionReason: 'The income could not be verified.',
      timeline: [...ORDER_DETAIL.timeline, { status: 'rejected', at: ORDER_DETAIL.createdAt + 60_000 }],
    };
    fakeApi({ 'GET /api/v1/borrower/orders/KL-261123-7F3K9Q': () => ok(rejected) }).signIn();
    renderBorrower('/app/orders/KL-261123-7F3K9Q?lang=1');
    const note = await screen.findByRole('note');
    expect(within(note).getByRole('heading', { level: 3, name: 'Why it was declined' })).toBeInTheDocument();
    expect(note).toHaveTextContent('The income could not be verified.');
  });

  it('shows no declined note on a loan that was not declined', async () => {
    fakeApi({ 'GET /api/v1/borrower/orders/KL-261123-7F3K9Q': () => ok(ORDER_DISBURSED) }).signIn();
    renderBorrower('/app/orders/KL-261123-7F3K9Q?lang=1');
    await screen.findByRole('heading', { level: 2, name: 'Flexi 6 Weeks' });
    expect(screen.queryByRole('note')).not.toBeInTheDocument();
  });

  it('says a loan that is not the borrower’s was not found', async () => {
    fakeApi({ 'GET /api/v1/borrower/orders/KL-OTHER': () => refusal(404, 'not_found', 'Not found.') }).signIn();
    renderBorrower('/app/orders/KL-OTHER?lang=1');
    expect(await screen.findByRole('heading', { level: 2, name: 'Loan not found' })).toBeInTheDocument();
    expect(screen.getByText('There is no loan with this number in your account.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'See my loans' })).toHaveAttribute('href', '/app/orders');
  });

  it('offers a retry when the loan could not be loaded', async () => {
    let fail = true;
    fakeApi({ 'GET /api/v1/borrower/orders/KL-261123-7F3K9Q': () => (fail ? refusal(502, 'bad_gateway', '') : ok(ORDER_DETAIL)) }).signIn();
    const user = userEvent.setup();
    renderBorrower('/app/orders/KL-261123-7F3K9Q?lang=1');
    expect(await screen.findByRole('alert')).toHaveTextContent('This loan could not be loaded.');
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('Under review', { selector: '.timeline__status' })).toBeInTheDocument();
  });
});

describe('a loan’s agreement', () => {
  it('shows the parties, the accepted Key Fact Statement and the clauses', async () => {
    const api = fakeApi({ 'GET /api/v1/borrower/orders/KL-261123-7F3K9Q/agreement': () => ok(AGREEMENT) });
    api.signIn();
    renderBorrower('/app/orders/KL-261123-7F3K9Q/agreement?lang=1');

    expect(await screen.findByRole('heading', { level: 2, name: 'Loan agreement KL-261123-7F3K9Q' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1, name: 'Loan agreement' })).toBeInTheDocument();
    expect(screen.getByText(`Loan KL-261123-7F3K9Q, accepted on ${at(AGREEMENT.acceptedAt)}.`)).toBeInTheDocument();

    const parties = screen.getByRole('heading', { level: 2, name: 'Parties' }).closest('section')!;
    const [lender, borrower] = Array.from(parties.querySelectorAll('dl'));
    expect(text(lender!)).toContain('NameKilat Finance Private Limited (NBFC)');
    expect(text(lender!)).toContain('Grievance officerPriya Raman, grievance@kilat.example, +91 80 4000 1299');
    // The e-mail address wraps inside the card between its parts, not mid-word.
    const officer = within(lender!).getByText('Grievance officer').nextElementSibling!;
    expect(officer).toHaveClass('long-value');
    expect(Array.from(officer.childNodes, (node) => node.textContent)).toEqual(['Priya Raman, ', 'grievance@', '', 'kilat', '', '.example,', ' +91 80 4000 1299']);
    expect(text(borrower!)).toContain('NameAsha Verma');
    expect(text(borrower!)).toContain('ID number******234F');
    expect(text(borrower!)).toContain('Address12 MG Road, Bengaluru 560001');
    expect(text(borrower!)).toContain('Bank accountHDFC Bank **** **** 4321');

    expect(screen.getByText('83.87%')).toBeInTheDocument();
    expect(screen.getByText('Total you repay').nextSibling).toHaveTextContent('₹6,201.60');
    expect(within(screen.getByRole('table')).getAllByRole('row')).toHaveLength(4);

    const clauses = screen.getByRole('heading', { level: 2, name: 'Terms' }).closest('article')!;
    expect(within(clauses).getAllByRole('heading', { level: 3 }).map(text)).toEqual(['The loan', 'Cooling-off']);
    expect(clauses).toHaveTextContent('The lender lends the borrower the amount sanctioned in the Key Fact Statement.');
    // No confirmation here: this statement was accepted already.
    expect(screen.queryByRole('checkbox')).toBeNull();
  });

  it('says an agreement of another borrower’s loan was not found', async () => {
    fakeApi({ 'GET /api/v1/borrower/orders/KL-OTHER/agreement': () => refusal(404, 'not_found', 'Not found.') }).signIn();
    renderBorrower('/app/orders/KL-OTHER/agreement?lang=1');
    expect(await screen.findByRole('heading', { level: 2, name: 'Loan not found' })).toBeInTheDocument();
  });
});
