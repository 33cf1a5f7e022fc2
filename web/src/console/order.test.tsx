import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { CSRF, OPERATORS, fakeConsoleApi, ok, refusal, renderConsole } from '@/test/render-console';
import { LOAN, LOAN_EXITED } from './finance.test-data';
import { DUPLICATES, HISTORY, QUEUE_IN, consoleOrder } from './fixtures.test-data';

const ORDER_PATH = '/api/v1/console/orders/KL-261123-BBBBBB';
const PAGE = '/console/orders/KL-261123-BBBBBB';

describe('order view', () => {
  it('shows a reviewer the borrower, the certification in full, the KFS and the timeline', async () => {
    fakeConsoleApi({ signedIn: true, handlers: { [`GET ${ORDER_PATH}`]: () => ok(consoleOrder({ unmasked: true })) } });
    renderConsole(PAGE);
    expect(await screen.findByRole('heading', { level: 1, name: /Order KL-261123-BBBBBB/ })).toHaveTextContent('Pending review');
    const summary = screen.getByRole('region', { name: 'Application' });
    expect(summary).toHaveTextContent('+91 ******4455');
    expect(summary).toHaveTextContent('₹6,000');
    expect(summary).toHaveTextContent('83.87%');

    const cert = screen.getByRole('region', { name: 'Certification' });
    expect(cert).toHaveTextContent('shown in full to reviewers; this view is recorded in the audit trail');
    expect(within(cert).getByText('ABCPE1234F')).toBeInTheDocument();
    expect(within(cert).getByText('501001234567')).toBeInTheDocument();
    expect(within(cert).getByText('₹45,000 a month (₹5,40,000 a year)')).toBeInTheDocument();

    const kfs = screen.getByRole('region', { name: 'Key Fact Statement (as accepted)' });
    const schedule = within(kfs).getByRole('table', { name: 'Schedule' });
    expect(within(schedule).getAllByRole('row')).toHaveLength(4);
    expect(within(schedule).getByText('3 Jan 2027')).toBeInTheDocument();
    expect(within(schedule).getByText('₹2,067.60')).toBeInTheDocument();
    expect(kfs).toHaveTextContent('₹400 once per overdue installment (at most ₹1,200 over the loan)');
    expect(kfs).not.toHaveTextContent('a day for');

    const timeline = screen.getByRole('region', { name: 'Timeline' });
    expect(timeline).toHaveTextContent('Borrower');
  });

  it('shows support masked numbers and no decision', async () => {
    const order = consoleOrder({ unmasked: false });
    const daily = { ...order, order: { ...order.order, kfs: { ...order.order.kfs, lateCharge: { flat: 40000, perDay: 5000, maxDays: 30 } } } };
    fakeConsoleApi({ operator: OPERATORS.support, signedIn: true, handlers: { [`GET ${ORDER_PATH}`]: () => ok(daily) } });
    renderConsole(PAGE);
    const cert = await screen.findByRole('region', { name: 'Certification' });
    expect(screen.getByRole('region', { name: 'Key Fact Statement (as accepted)' })).toHaveTextContent(
      '₹400 once per overdue installment, then ₹50 a day for at most 30 days (at most ₹1,200 over the loan)',
    );
    expect(cert).toHaveTextContent('masked for your role');
    expect(within(cert).getByText('******234F')).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Decision' })).not.toBeInTheDocument();
  });

  it('approves after a confirmation that restates the order, the amount and the reason, sending the CSRF token', async () => {
    let status = 'pending_review';
    const api = fakeConsoleApi({
      signedIn: true,
      handlers: {
        [`GET ${ORDER_PATH}`]: () => ok(consoleOrder({ unmasked: true, status, reviewNote: status === 'approved' ? 'Income verified.' : null })),
        [`POST ${ORDER_PATH}/approve`]: () => {
          status = 'approved';
          return ok({ orderNo: 'KL-261123-BBBBBB', status: 'approved' });
        },
      },
    });
    renderConsole(PAGE);
    const user = userEvent.setup();
    const decision = await screen.findByRole('region', { name: 'Decision' });
    await user.type(within(decision).getByLabelText('Note for the team (never shown to the borrower)'), '  Income verified.  ');
    await user.click(within(decision).getByRole('button', { name: 'Approve…' }));
    expect(api.callsTo('POST', `${ORDER_PATH}/approve`)).toHaveLength(0);
    const confirm = within(decision).getByRole('group');
    expect(confirm).toHaveTextContent('Approve KL-261123-BBBBBB for ₹6,000?');
    expect(confirm).toHaveTextContent('Note for the team: “Income verified.”');
    expect(confirm).toHaveTextContent('your note is not shown to them');
    expect(confirm).not.toHaveTextContent('The borrower will read');

    await user.click(within(confirm).getByRole('button', { name: 'Yes, approve' }));
    expect(await screen.findByRole('status')).toHaveTextContent('KL-261123-BBBBBB is approved.');
    const [approve] = api.callsTo('POST', `${ORDER_PATH}/approve`);
    expect(approve!.body).toEqual({ note: 'Income verified.' });
    expect(approve!.headers['X-CSRF-Token']).toBe(CSRF);
    await waitFor(() => expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Approved'));
    expect(screen.queryByRole('region', { name: 'Decision' })).not.toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Application' })).toHaveTextContent('Income verified.');
  });

  it('needs a reason to reject, and can step back from the confirmation', async () => {
    const api = fakeConsoleApi({ signedIn: true, handlers: { [`GET ${ORDER_PATH}`]: () => ok(consoleOrder({ unmasked: true })) } });
    renderConsole(PAGE);
    const user = userEvent.setup();
    const decision = await screen.findByRole('region', { name: 'Decision' });
    await user.click(within(decision).getByRole('button', { name: 'Reject…' }));
    expect(within(decision).getByText('Write the reason for rejecting: the borrower is shown it.')).toBeInTheDocument();
    expect(within(decision).queryByRole('group')).not.toBeInTheDocument();

    await user.type(within(decision).getByLabelText('Reason the borrower reads (to reject)'), 'Income below the minimum.');
    await user.click(within(decision).getByRole('button', { name: 'Reject…' }));
    expect(within(decision).getByRole('group')).toHaveTextContent('Reject KL-261123-BBBBBB for ₹6,000?');
    expect(within(decision).getByRole('group')).toHaveTextContent('The borrower will read: “Income below the minimum.”');
    expect(within(decision).getByRole('group')).toHaveTextContent('No note for the team.');
    await user.click(within(decision).getByRole('button', { name: 'Back' }));
    expect(within(decision).queryByRole('group')).not.toBeInTheDocument();
    expect(api.callsTo('POST', `${ORDER_PATH}/reject`)).toHaveLength(0);
  });

  it('says, with the reason, the language the borrower reads it in: English in India, Indonesian in Indonesia', async () => {
    const india = consoleOrder({ unmasked: true });
    const indonesia = { ...india, order: { ...india.order, currency: 'IDR', kfs: { ...india.order.kfs, market: 'ID', currency: 'IDR' } } };
    let order: unknown = india;
    fakeConsoleApi({ signedIn: true, handlers: { [`GET ${ORDER_PATH}`]: () => ok(order) } });
    const { unmount } = renderConsole(PAGE);
    const decision = await screen.findByRole('region', { name: 'Decision' });
    const reason = within(decision).getByLabelText('Reason the borrower reads (to reject)');
    expect(reason).toHaveAccessibleDescription(/The borrower reads this in English, in the app\.$/);
    expect(decision).not.toHaveTextContent('Indonesian');
    unmount();

    order = indonesia;
    renderConsole(PAGE);
    const idDecision = await screen.findByRole('region', { name: 'Decision' });
    const idReason = within(idDecision).getByLabelText('Reason the borrower reads (to reject)');
    expect(idReason).toHaveAccessibleDescription(/The borrower reads this in the app in Bahasa Indonesia: write it in Indonesian\.$/);
    expect(idDecision).not.toHaveTextContent('in English');
    // The language stays in view when the hint gives way to an error.
    await userEvent.setup().click(within(idDecision).getByRole('button', { name: 'Reject…' }));
    expect(within(idDecision).getByText('Write the reason for rejecting: the borrower is shown it.')).toBeInTheDocument();
    expect(within(idDecision).getByText('The borrower reads this in the app in Bahasa Indonesia: write it in Indonesian.')).toBeInTheDocument();
  });

  it('says plainly when the order was decided meanwhile (409) and shows its state now', async () => {
    let status = 'pending_review';
    fakeConsoleApi({
      signedIn: true,
      handlers: {
        [`GET ${ORDER_PATH}`]: () => ok(consoleOrder({ unmasked: true, status })),
        [`POST ${ORDER_PATH}/reject`]: () => {
          status = 'approved';
          return refusal(409, 'invalid_transition', 'This loan cannot move to that state now.');
        },
      },
    });
    renderConsole(PAGE);
    const user = userEvent.setup();
    const decision = await screen.findByRole('region', { name: 'Decision' });
    await user.type(within(decision).getByLabelText('Reason the borrower reads (to reject)'), 'Documents unclear.');
    await user.click(within(decision).getByRole('button', { name: 'Reject…' }));
    await user.click(within(decision).getByRole('button', { name: 'Yes, reject' }));
    // Said by the screen, not the decision panel: the panel goes once the order is read again.
    expect(await screen.findByRole('alert')).toHaveTextContent('no longer waiting for review');
    await waitFor(() => expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Approved'));
  });

  it('keeps the notice that the order was decided meanwhile (409) in view once the page shows it approved', async () => {
    let status = 'pending_review';
    fakeConsoleApi({
      signedIn: true,
      handlers: {
        [`GET ${ORDER_PATH}`]: () => ok(consoleOrder({ unmasked: true, status })),
        [`POST ${ORDER_PATH}/approve`]: () => {
          status = 'approved';
          return refusal(409, 'invalid_transition', 'This loan cannot move to that state now.');
        },
      },
    });
    renderConsole(PAGE);
    const user = userEvent.setup();
    const decision = await screen.findByRole('region', { name: 'Decision' });
    await user.click(within(decision).getByRole('button', { name: 'Approve…' }));
    await user.click(within(decision).getByRole('button', { name: 'Yes, approve' }));
    await waitFor(() => expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Approved'));
    expect(screen.queryByRole('region', { name: 'Decision' })).not.toBeInTheDocument();
    const alert = screen.getByRole('alert');
    expect(alert).toHaveTextContent(
      'This application is no longer waiting for review (someone may have decided it already). The page now shows its current state.',
    );
    expect(alert).toHaveFocus();
  });

  it('shows the server’s field error for the note', async () => {
    fakeConsoleApi({
      signedIn: true,
      handlers: {
        [`GET ${ORDER_PATH}`]: () => ok(consoleOrder({ unmasked: true })),
        [`POST ${ORDER_PATH}/approve`]: () =>
          refusal(422, 'validation_failed', 'Some fields need your attention.', { fields: { note: 'At most 500 characters.' } }),
      },
    });
    renderConsole(PAGE);
    const user = userEvent.setup();
    const decision = await screen.findByRole('region', { name: 'Decision' });
    await user.type(within(decision).getByLabelText('Note for the team (never shown to the borrower)'), 'Fine.');
    await user.click(within(decision).getByRole('button', { name: 'Approve…' }));
    await user.click(within(decision).getByRole('button', { name: 'Yes, approve' }));
    expect(await within(decision).findByText('At most 500 characters.')).toBeInTheDocument();
    expect(within(decision).getByLabelText('Note for the team (never shown to the borrower)')).toHaveAttribute('aria-invalid', 'true');
  });

  it('reads the order again each time it is opened, so every unmasked view is one the audit trail records', async () => {
    const api = fakeConsoleApi({
      signedIn: true,
      handlers: {
        [`GET ${ORDER_PATH}`]: () => ok(consoleOrder({ unmasked: true })),
        'GET /api/v1/console/applications': () => ok([{ ...QUEUE_IN[1]!, orderNo: 'KL-261123-BBBBBB' }]),
      },
    });
    renderConsole(PAGE);
    const user = userEvent.setup();
    await user.click(await screen.findByRole('link', { name: 'Back to the review queue' }));
    await user.click(await screen.findByRole('link', { name: 'KL-261123-BBBBBB' }));
    expect(await screen.findByRole('region', { name: 'Certification' })).toHaveTextContent('ABCPE1234F');
    expect(api.callsTo('GET', ORDER_PATH)).toHaveLength(2);
  });

  it('goes back to the queue page and market the order was opened from, and to the first page of its market otherwise', async () => {
    const api = fakeConsoleApi({
      signedIn: true,
      handlers: {
        [`GET ${ORDER_PATH}`]: () => ok(consoleOrder({ unmasked: true })),
        'GET /api/v1/console/applications': (call) =>
          ok(call.query.get('page') === '3' ? [{ ...QUEUE_IN[1]!, orderNo: 'KL-261123-BBBBBB' }] : QUEUE_IN),
        'GET /api/v1/console/applications/counts': () => ok([{ market: 'IN', waiting: 101, claimed: 0 }]),
      },
    });
    renderConsole('/console/applications?market=IN&page=3');
    const user = userEvent.setup();
    await user.click(await screen.findByRole('link', { name: 'KL-261123-BBBBBB' }));
    const back = await screen.findByRole('link', { name: 'Back to the review queue' });
    expect(back).toHaveAttribute('href', '/console/applications?market=IN&page=3');
    await user.click(back);
    expect(await screen.findByText('Page 3 of 3')).toBeInTheDocument();
    expect(window.location.search).toBe('?market=IN&page=3');
    expect(api.callsTo('GET', '/api/v1/console/applications').map((c) => c.query.get('page'))).not.toContain(null);
  });

  it('shows the borrower’s whole picture: age, income a month and a year, labels instead of codes, formatted phones', async () => {
    fakeConsoleApi({ signedIn: true, handlers: { [`GET ${ORDER_PATH}`]: () => ok(consoleOrder({ unmasked: true })) } });
    renderConsole(PAGE);
    const picture = await screen.findByRole('region', { name: 'Borrower' });
    const facts = Object.fromEntries(
      within(picture)
        .getAllByRole('definition')
        .map((dd) => [dd.previousElementSibling?.textContent, dd.textContent]),
    );
    expect(facts).toMatchObject({
      Age: '32 years',
      'Income a month': '₹45,000',
      'Income a year': '₹5,40,000',
      'Lender’s minimum': '₹12,000 a month (₹1,44,000 a year)',
      Employment: 'Salaried (private company)',
      City: 'Mumbai',
      Bank: 'HDFC Bank',
    });
    const cert = screen.getByRole('region', { name: 'Certification' });
    expect(within(cert).getByText('HDFC Bank (HDFC)')).toBeInTheDocument();
    expect(within(cert).getByText('Female (female)')).toBeInTheDocument();
    expect(within(cert).getByText('2 Mar 1994 · 32 years')).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Other applications and loans of this borrower' })).toHaveTextContent('This is the borrower’s first application.');
    expect(screen.queryByRole('region', { name: /Possible duplicate/ })).not.toBeInTheDocument();
  });

  it('flags the borrower’s values found on other borrowers, with a link to each other order, and lists prior loans', async () => {
    fakeConsoleApi({
      signedIn: true,
      handlers: { [`GET ${ORDER_PATH}`]: () => ok(consoleOrder({ unmasked: true, duplicates: DUPLICATES, history: HISTORY })) },
    });
    renderConsole(PAGE);
    const flag = await screen.findByRole('region', { name: 'Possible duplicates: 2 values of this borrower are on other borrowers' });
    const items = within(flag).getAllByRole('listitem');
    expect(items[0]).toHaveTextContent('ID number (PAN/NIK) is the ID number (PAN/NIK) of another borrower (India): open KL-261101-ZZZZZZ');
    expect(within(items[0]!).getByRole('link', { name: 'open KL-261101-ZZZZZZ' })).toHaveAttribute('href', '/console/orders/KL-261101-ZZZZZZ');
    expect(items[1]).toHaveTextContent('emergency contact 1’s phone is the mobile number of another borrower (India): borrower b-8, no order');
    const history = screen.getByRole('region', { name: 'Other applications and loans of this borrower' });
    const rows = within(history).getAllByRole('row').slice(1).map((row) => within(row).getAllByRole('cell').map((c) => c.textContent));
    expect(rows[0]).toEqual(['KL-261001-OLDONE', expect.stringMatching(/2026/), 'Flexi EMI', '₹10,000', 'Repaid', '3 days']);
    expect(rows[1]).toEqual(['KL-260901-OLDTWO', expect.stringMatching(/2026/), 'Flexi 6 Weeks', '₹5,000', 'Rejected', '—']);
  });

  it('claims and releases with the keyboard, and refuses a decision while another reviewer holds it', async () => {
    let claim: { operatorId: string; username: string; until: number } | null = null;
    const api = fakeConsoleApi({
      operator: OPERATORS.admin,
      signedIn: true,
      handlers: {
        [`GET ${ORDER_PATH}`]: () => ok(consoleOrder({ unmasked: true, claim })),
        [`POST ${ORDER_PATH}/claim`]: () => {
          claim = { operatorId: OPERATORS.admin.id, username: OPERATORS.admin.username, until: Date.UTC(2026, 10, 22, 10, 0) };
          return ok(claim);
        },
        [`POST ${ORDER_PATH}/release`]: () => {
          claim = { operatorId: 'op-other', username: 'farah', until: Date.UTC(2026, 10, 22, 10, 0) };
          return ok({ orderNo: 'KL-261123-BBBBBB' });
        },
      },
    });
    renderConsole(PAGE);
    const user = userEvent.setup();
    const panel = await screen.findByRole('region', { name: 'Who is working on it' });
    expect(panel).toHaveTextContent('Nobody has claimed this application.');
    within(panel).getByRole('button', { name: 'Claim for 30 minutes' }).focus();
    await user.keyboard('{Enter}');
    await waitFor(() => expect(api.callsTo('POST', `${ORDER_PATH}/claim`)).toHaveLength(1));
    expect(await screen.findByText(/You hold this application until/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Release' }));
    // Someone else took it meanwhile: the decision buttons are off, an admin may release the other's claim.
    expect(await screen.findByText(/farah is working on this application until/)).toBeInTheDocument();
    const decision = screen.getByRole('region', { name: 'Decision' });
    expect(within(decision).getByRole('button', { name: 'Approve…' })).toBeDisabled();
    expect(within(decision).getByRole('button', { name: 'Reject…' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Release farah’s claim' })).toBeEnabled();
  });

  it('says when there is no such order', async () => {
    fakeConsoleApi({ signedIn: true });
    renderConsole('/console/orders/KL-000000-NOPE00');
    expect(await screen.findByRole('alert')).toHaveTextContent('Not found.');
    expect(screen.queryByRole('button', { name: 'Try again' })).not.toBeInTheDocument();
  });
});

describe('order view of a paid-out loan', () => {
  it('shows the payout, the plan with each installment’s status, the payments and the ledger', async () => {
    fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: { [`GET ${ORDER_PATH}`]: () => ok({ ...consoleOrder({ unmasked: false, status: 'disbursed' }), loan: LOAN }) },
    });
    renderConsole(PAGE);
    const payout = await screen.findByRole('region', { name: 'Payout' });
    expect(payout).toHaveTextContent('HDFCN5202611');
    expect(payout).toHaveTextContent('25 Nov 2026');
    expect(payout).toHaveTextContent('₹5,823');
    expect(payout).toHaveTextContent('₹4,134.40');

    const plan = within(screen.getByRole('region', { name: 'Installment plan' })).getByRole('table');
    const rows = within(plan).getAllByRole('row').slice(1);
    const cells = rows.map((row) => within(row).getAllByRole('cell').map((cell) => cell.textContent));
    expect(cells[0]).toEqual(['1', '9 Dec 2026', '₹2,000', '₹67.20', '₹0', '₹0', '₹2,067.20', '₹2,067.20', '₹0', 'Paid']);
    expect(cells[1]![9]).toBe('Upcoming');

    const payments = screen.getByRole('region', { name: 'Payments' });
    expect(within(payments).getAllByRole('row')[1]!.textContent).toMatch(/KPPAY1000000.*UPI.*700000000001.*₹2,067\.20.*₹2,067\.20.*Confirmed/);

    const ledger = within(screen.getByRole('region', { name: 'Ledger' })).getByRole('table');
    const entries = within(ledger).getAllByRole('row').slice(1).map((row) => within(row).getAllByRole('cell').map((c) => c.textContent));
    expect(entries).toEqual([
      ['0', 'Payout', '25 Nov 2026', '₹5,823', '₹6,201.60', '₹0', '₹0', '₹0', '₹0', '₹0'],
      ['1', 'Repayment', '9 Dec 2026', '₹2,067.20', '₹0', '₹2,000', '₹67.20', '₹0', '₹0', '₹0'],
    ]);
  });

  it('shows a cooling-off exit as the principal and the days’ interest, the fees kept at payout refunded', async () => {
    fakeConsoleApi({
      operator: OPERATORS.support,
      signedIn: true,
      handlers: { [`GET ${ORDER_PATH}`]: () => ok({ ...consoleOrder({ unmasked: false, status: 'exited_in_cooling_off' }), loan: LOAN_EXITED }) },
    });
    renderConsole(PAGE);
    const ledger = within(await screen.findByRole('region', { name: 'Ledger' })).getByRole('table');
    const headers = within(ledger).getAllByRole('columnheader').map((h) => h.textContent);
    expect(headers.slice(3)).toEqual(['Cash', 'Added to dues', 'Principal paid', 'Interest paid', 'Fees paid', 'Late charges paid', 'Fees refunded']);
    const exit = within(ledger).getAllByRole('row').at(-1)!;
    expect(within(exit).getAllByRole('cell').map((c) => c.textContent)).toEqual([
      '1',
      'Cooling-off exit',
      '27 Nov 2026',
      '₹5,832.60',
      '-₹192',
      '₹6,000',
      '₹9.60',
      '₹0',
      '₹0',
      '₹177',
    ]);
    const plan = within(screen.getByRole('region', { name: 'Installment plan' })).getByRole('table');
    const fees = within(plan).getAllByRole('row').slice(1).map((row) => within(row).getAllByRole('cell')[4]!.textContent);
    expect(fees).toEqual(['₹0', '₹0', '₹0']);
  });

  it('names every payment status, with the refund owed or sent', async () => {
    const base = LOAN.payments[0]!;
    const loan = {
      ...LOAN,
      payments: [
        base,
        { ...base, paymentId: 'pay2', reference: 'KPPAY2000000', status: 'refund_due', receivedAmount: 50000, refundAmount: 20000 },
        { ...base, paymentId: 'pay3', reference: 'KPPAY3000000', status: 'refunded', receivedAmount: 30000, refundAmount: 30000, refundReference: 'N2612345' },
        { ...base, paymentId: 'pay4', reference: 'KPPAY4000000', status: 'held', receivedAmount: 100000 },
      ],
    };
    fakeConsoleApi({
      operator: OPERATORS.finance,
      signedIn: true,
      handlers: { [`GET ${ORDER_PATH}`]: () => ok({ ...consoleOrder({ unmasked: false, status: 'disbursed' }), loan }) },
    });
    renderConsole(PAGE);
    const payments = await screen.findByRole('region', { name: 'Payments' });
    const status = within(payments)
      .getAllByRole('row')
      .slice(1)
      .map((row) => within(row).getAllByRole('cell')[6]!.textContent);
    expect(status).toEqual(['Confirmed', 'Refund due · ₹200 to refund', 'Refunded · ₹300 refunded, ref. N2612345', 'Held']);
  });

  it('shows no loan sections before payout', async () => {
    fakeConsoleApi({ operator: OPERATORS.finance, signedIn: true, handlers: { [`GET ${ORDER_PATH}`]: () => ok({ ...consoleOrder({ unmasked: false, status: 'approved' }), loan: null }) } });
    renderConsole(PAGE);
    expect(await screen.findByRole('heading', { level: 1, name: /Order KL-261123-BBBBBB/ })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Payout' })).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Ledger' })).not.toBeInTheDocument();
  });
});
