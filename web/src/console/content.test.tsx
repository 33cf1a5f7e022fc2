import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { deferred, fakeConsoleApi, ok, OPERATORS, refusal, renderConsole } from '@/test/render-console';

const ENTRY = (id: string, lang: string, category: string, position: number, question: string) => ({
  id,
  lang,
  category,
  question,
  answer: `The answer to ${question}`,
  position,
  updatedAt: 1764000000000,
});

const FAQ = [
  ENTRY('f1', 'en', 'apply', 1, 'Who can borrow?'),
  ENTRY('f2', 'en', 'apply', 2, 'How much can I borrow?'),
  ENTRY('f3', 'en', 'repay', 1, 'Can I repay early?'),
  ENTRY('f4', 'id', 'apply', 1, 'Siapa yang bisa meminjam?'),
];

const rowTexts = (table: HTMLElement) =>
  within(table)
    .getAllByRole('row')
    .slice(1)
    .map((row) => within(row).getAllByRole('cell')[2]!.querySelector('strong')!.textContent);

describe('FAQ', () => {
  it('is an admin section: other roles neither see it nor open it', async () => {
    fakeConsoleApi({ operator: OPERATORS.support, signedIn: true, handlers: { 'GET /api/v1/console/applications': () => ok([]) } });
    renderConsole('/console/faq');
    expect(await screen.findByRole('heading', { name: 'Not available to your role' })).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'FAQ' })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Site' })).toBeNull();
  });

  it('lists one market’s language by category, filters a category, and shows loading and empty states', async () => {
    const answer = deferred();
    fakeConsoleApi({ operator: OPERATORS.adminOnly, signedIn: true, handlers: { 'GET /api/v1/console/faq': () => answer.promise } });
    renderConsole('/console/faq?market=IN');
    expect(await screen.findByText('Loading the FAQ…')).toHaveAttribute('role', 'status');
    answer.resolve(ok(FAQ));
    const table = await screen.findByRole('table', { name: '3 questions in English' });
    expect(rowTexts(table)).toEqual(['Who can borrow?', 'How much can I borrow?', 'Can I repay early?']);
    expect(screen.getByRole('link', { name: 'FAQ' })).toHaveAttribute('aria-current', 'page');

    const user = userEvent.setup();
    await user.selectOptions(screen.getByLabelText('Category'), 'repay');
    expect(rowTexts(await screen.findByRole('table', { name: '1 questions in English' }))).toEqual(['Can I repay early?']);
    await user.click(screen.getByRole('link', { name: 'Indonesia (Indonesian)' }));
    expect(await screen.findByText('No questions in Indonesian here yet.')).toBeInTheDocument();
    await user.selectOptions(screen.getByLabelText('Category'), '');
    expect(rowTexts(await screen.findByRole('table', { name: '1 questions in Indonesian' }))).toEqual(['Siapa yang bisa meminjam?']);
  });

  it('shows a failed read with a way to try again', async () => {
    let fail = true;
    fakeConsoleApi({
      operator: OPERATORS.adminOnly,
      signedIn: true,
      handlers: { 'GET /api/v1/console/faq': () => (fail ? refusal(500, 'internal', 'Something went wrong on our side.') : ok(FAQ)) },
    });
    renderConsole('/console/faq');
    expect(await screen.findByRole('alert')).toHaveTextContent('Something went wrong on our side.');
    fail = false;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('table', { name: '3 questions in English' })).toBeInTheDocument();
  });

  it('creates a question and shows the server’s field errors by their fields', async () => {
    let created = false;
    const api = fakeConsoleApi({
      operator: OPERATORS.adminOnly,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/faq': () => ok(created ? [...FAQ, ENTRY('f5', 'en', 'account', 1, 'How do I delete my account?')] : FAQ),
        'POST /api/v1/console/faq': (call) => {
          const body = call.body as { question: string };
          if (body.question.length > 5 && !body.question.endsWith('?')) {
            return refusal(422, 'validation_failed', 'Some fields need your attention.', { fields: { answer: 'This field is required.' } });
          }
          created = true;
          return ok(ENTRY('f5', 'en', 'account', 1, 'How do I delete my account?'));
        },
      },
    });
    renderConsole('/console/faq?market=IN');
    await screen.findByRole('table', { name: '3 questions in English' });
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'New question' }));
    const form = screen.getByRole('form', { name: 'New question' });
    await user.selectOptions(within(form).getByLabelText('Category'), 'account');
    await user.type(within(form).getByLabelText('Question'), 'How do I delete my account');
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    const answer = within(form).getByLabelText('Answer');
    expect(await within(form).findByText('This field is required.')).toBeInTheDocument();
    expect(answer).toHaveAttribute('aria-invalid', 'true');
    expect(answer).toHaveAccessibleDescription('This field is required.');
    expect(api.callsTo('POST', '/api/v1/console/faq')[0]!.body).toEqual({
      lang: 'en',
      category: 'account',
      question: 'How do I delete my account',
      answer: '',
      position: 1,
    });

    await user.type(within(form).getByLabelText('Question'), '?');
    await user.type(answer, 'In the app: Me, then Delete account.');
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Saved “How do I delete my account?”.')).toBeInTheDocument();
    expect(screen.queryByRole('form', { name: 'New question' })).toBeNull();
    expect(await screen.findByRole('table', { name: '4 questions in English' })).toBeInTheDocument();
  });

  it('edits a question and deletes one only after confirming', async () => {
    const api = fakeConsoleApi({
      operator: OPERATORS.adminOnly,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/faq': () => ok(FAQ),
        'PUT /api/v1/console/faq/f1': (call) => ok({ ...FAQ[0], ...(call.body as object) }),
        'DELETE /api/v1/console/faq/f3': () => ok({ id: 'f3', deleted: true }),
      },
    });
    renderConsole('/console/faq?market=IN');
    await screen.findByRole('table', { name: '3 questions in English' });
    const user = userEvent.setup();

    await user.click(screen.getByRole('button', { name: 'Edit “Who can borrow?”' }));
    const form = screen.getByRole('form', { name: 'Edit question' });
    // The form opens above the list and takes the focus, which brings it into view from far down the list.
    expect(within(form).getByRole('heading', { name: 'Edit question' })).toHaveFocus();
    expect(within(form).getByLabelText('Question')).toHaveValue('Who can borrow?');
    await user.clear(within(form).getByLabelText('Answer'));
    await user.type(within(form).getByLabelText('Answer'), 'Salaried people in India.');
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    await screen.findByText('Saved “Who can borrow?”.');
    expect(api.callsTo('PUT', '/api/v1/console/faq/f1')).toHaveLength(1);
    expect(api.callsTo('PUT', '/api/v1/console/faq/f1')[0]!.body).toEqual({
      lang: 'en',
      category: 'apply',
      question: 'Who can borrow?',
      answer: 'Salaried people in India.',
      position: 1,
    });

    await user.click(screen.getByRole('button', { name: 'Delete “Can I repay early?”' }));
    const confirm = screen.getByRole('group', { name: 'Delete “Can I repay early?”? Borrowers stop seeing it at once.' });
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(api.callsTo('DELETE', '/api/v1/console/faq/f3')).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Delete “Can I repay early?”' }));
    await user.click(screen.getByRole('button', { name: 'Yes, delete' }));
    await screen.findByText('Deleted “Can I repay early?”.');
    await waitFor(() => expect(api.callsTo('DELETE', '/api/v1/console/faq/f3')).toHaveLength(1));
  });

  it('moves a question with one request, its buttons off at the ends and while it moves, and shows a refusal', async () => {
    let stored = FAQ;
    const answer = deferred();
    const api = fakeConsoleApi({
      operator: OPERATORS.adminOnly,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/faq': () => ok(stored),
        'POST /api/v1/console/faq/f2/move': () => answer.promise,
        'POST /api/v1/console/faq/f1/move': () =>
          refusal(422, 'validation_failed', 'Some fields need your attention.', {
            fields: { direction: 'This question is already the first of its category: it cannot move up.' },
          }),
      },
    });
    renderConsole('/console/faq?market=IN');
    const table = await screen.findByRole('table', { name: '3 questions in English' });
    const user = userEvent.setup();
    const up = (question: string) => screen.getByRole('button', { name: `Move “${question}” up` });
    const down = (question: string) => screen.getByRole('button', { name: `Move “${question}” down` });

    // The first of each category cannot move up, the last cannot move down.
    expect(up('Who can borrow?')).toBeDisabled();
    expect(down('How much can I borrow?')).toBeDisabled();
    expect(up('Can I repay early?')).toBeDisabled();
    expect(down('Can I repay early?')).toBeDisabled();
    expect(down('Who can borrow?')).toBeEnabled();

    await user.click(up('How much can I borrow?'));
    // While it moves, no other move starts.
    await waitFor(() => expect(down('Who can borrow?')).toBeDisabled());
    expect(up('How much can I borrow?')).toBeDisabled();
    expect(api.callsTo('POST', '/api/v1/console/faq/f2/move').map((c) => c.body)).toEqual([{ direction: 'up' }]);
    // One request: the entries are not written one by one any more.
    expect(api.calls.filter((c) => c.method === 'PUT')).toHaveLength(0);

    const moved = [{ ...FAQ[1]!, position: 1 }, { ...FAQ[0]!, position: 2 }];
    stored = [...moved, FAQ[2]!, FAQ[3]!];
    answer.resolve(ok({ entry: moved[0], category: moved }));
    await screen.findByText('Moved “How much can I borrow?”.');
    // The list is read again, in its new order, and the buttons follow it.
    await waitFor(() => expect(rowTexts(table)).toEqual(['How much can I borrow?', 'Who can borrow?', 'Can I repay early?']));
    expect(api.callsTo('GET', '/api/v1/console/faq').length).toBeGreaterThanOrEqual(2);
    await waitFor(() => expect(up('Who can borrow?')).toBeEnabled());
    expect(up('How much can I borrow?')).toBeDisabled();
    expect(down('Who can borrow?')).toBeDisabled();

    // Refused by the server (another admin moved it meanwhile): the reason it names, and the list read again.
    const reads = api.callsTo('GET', '/api/v1/console/faq').length;
    await user.click(up('Who can borrow?'));
    expect(await screen.findByRole('alert')).toHaveTextContent('This question is already the first of its category: it cannot move up.');
    expect(api.callsTo('POST', '/api/v1/console/faq/f1/move').map((c) => c.body)).toEqual([{ direction: 'up' }]);
    await waitFor(() => expect(api.callsTo('GET', '/api/v1/console/faq').length).toBeGreaterThan(reads));
    expect(screen.queryByText('Moved “Who can borrow?”.')).toBeNull();
  });
});

// As the server answers: by market code.
const CLAIMS: { market: string; payoutClaim: string; usersClaim: string; updatedAt: number; updatedBy: string | null }[] = [
  { market: 'ID', payoutClaim: '', usersClaim: '', updatedAt: 1764000000000, updatedBy: null },
  { market: 'IN', payoutClaim: 'Money in your bank account within 2 hours.', usersClaim: 'Trusted by 3 million users.', updatedAt: 1764000000000, updatedBy: null },
];

describe('Site', () => {
  it('shows both markets’ claims, saves one market’s edit, and shows a refused claim by its field', async () => {
    let stored = CLAIMS;
    const api = fakeConsoleApi({
      operator: OPERATORS.adminOnly,
      signedIn: true,
      handlers: {
        'GET /api/v1/console/site/claims': () => ok(stored),
        'PUT /api/v1/console/site/claims/IN': (call) => {
          const body = call.body as { payoutClaim: string; usersClaim: string };
          if (!body.payoutClaim.trim().endsWith('.')) {
            return refusal(422, 'validation_failed', 'Some fields need your attention.', {
              fields: { payoutClaim: 'Write one sentence on one line, ending with . ! or ?, or leave it empty to withdraw the claim.' },
            });
          }
          const saved = { ...CLAIMS[1]!, payoutClaim: body.payoutClaim.trim(), usersClaim: body.usersClaim.trim(), updatedAt: 1764100000000, updatedBy: 'ada' };
          stored = [CLAIMS[0]!, saved];
          return ok(saved);
        },
      },
    });
    renderConsole('/console/site');
    const india = await screen.findByRole('form', { name: "India's claims" });
    const indonesia = screen.getByRole('form', { name: "Indonesia's claims" });
    expect(within(india).getByLabelText('Payout-speed claim')).toHaveValue('Money in your bank account within 2 hours.');
    expect(within(indonesia).getByLabelText('Users claim')).toHaveAccessibleDescription('Empty: withdrawn, not shown on the site.');
    expect(within(india).getByText('As in the settings file: no admin has changed them yet.')).toBeInTheDocument();

    const user = userEvent.setup();
    const payout = within(india).getByLabelText('Payout-speed claim');
    await user.clear(payout);
    await user.type(payout, 'Money the same day');
    await user.clear(within(india).getByLabelText('Users claim'));
    await user.click(within(india).getByRole('button', { name: "Save India's claims" }));
    await waitFor(() => expect(payout).toHaveAttribute('aria-invalid', 'true'));
    expect(payout).toHaveAccessibleDescription('Write one sentence on one line, ending with . ! or ?, or leave it empty to withdraw the claim.');

    await user.type(payout, '. ');
    await user.click(within(india).getByRole('button', { name: "Save India's claims" }));
    expect(await within(india).findByRole('status')).toHaveTextContent("India's claims saved");
    expect(await within(india).findByText(/Last changed by ada/)).toBeInTheDocument();
    expect(payout).toHaveValue('Money the same day.');
    expect(payout).not.toHaveAttribute('aria-invalid', 'true');
    expect(api.callsTo('PUT', '/api/v1/console/site/claims/IN').at(-1)!.body).toEqual({ payoutClaim: 'Money the same day. ', usersClaim: '' });
    const forms = screen.getAllByRole('form').map((f) => f.getAttribute('aria-label'));
    expect(forms).toEqual(["India's claims", "Indonesia's claims"]);
    expect(api.callsTo('PUT', '/api/v1/console/site/claims/ID')).toHaveLength(0);
  });

  it('shows a failed read', async () => {
    fakeConsoleApi({
      operator: OPERATORS.adminOnly,
      signedIn: true,
      handlers: { 'GET /api/v1/console/site/claims': () => refusal(500, 'internal', 'Something went wrong on our side.') },
    });
    renderConsole('/console/site');
    expect(await screen.findByRole('alert')).toHaveTextContent('Something went wrong on our side.');
  });
});
