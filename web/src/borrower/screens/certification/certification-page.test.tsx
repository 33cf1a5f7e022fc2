import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { deferred, fakeApi, ok, refusal, renderBorrower } from '@/test/render-borrower';
import { AT_BASE, ENUMS_IN, LOG, certificationUpTo } from './fixtures.test-data';

const CERT = '/api/v1/borrower/certification';
const LOG_PATH = '/api/v1/borrower/certification/log';

/** The step cards, in order. */
const stepItems = () => screen.getAllByRole('listitem').filter((item) => item.classList.contains('cert-step'));

describe('certification progress', () => {
  it('shows each step’s status, the progress, the next step to continue and the history in the market’s words', async () => {
    const pending = deferred();
    fakeApi({ [`GET ${CERT}`]: () => pending.promise, [`GET ${LOG_PATH}`]: () => ok(LOG) }).signIn();
    renderBorrower('/app/certification?lang=1');
    // The page's own loading state, under its title: not the route's, shown before the page's code is in.
    expect(await screen.findByRole('heading', { level: 1, name: 'Your details' })).toBeInTheDocument();
    expect(screen.getByText('Loading…')).toBeInTheDocument();
    pending.resolve(ok(certificationUpTo('job')));

    expect(await screen.findByText('2 of 5 steps done')).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1, name: 'Your details' })).toBeInTheDocument();
    expect(screen.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '2');
    expect(screen.getByRole('progressbar')).toHaveAttribute('aria-valuemax', '5');

    const items = stepItems();
    expect(items.map((item) => within(item).getByRole('heading').textContent)).toEqual([
      'Basic information',
      'Personal information',
      'Job and income',
      'Emergency contacts',
      'Bank account',
    ]);
    expect(items.map((item) => item.querySelector('.cert-step__status')?.textContent)).toEqual(['Done', 'Done', 'Next', 'Opens after the step before', 'Opens after the step before']);
    // The next step stands out and is the only one with a button onwards; done steps can be edited.
    expect(items[2]).toHaveAttribute('aria-current', 'step');
    expect(within(items[2]!).getByRole('link', { name: 'Continue' })).toHaveAttribute('href', '/app/certification/job');
    expect(screen.getAllByRole('link', { name: /^Continue|^Start/ })).toHaveLength(1);
    expect(screen.getByRole('link', { name: 'Edit Basic information' })).toHaveAttribute('href', '/app/certification/base');
    expect(screen.getByRole('link', { name: 'Edit Personal information' })).toHaveAttribute('href', '/app/certification/personal');
    expect(within(items[3]!).queryByRole('link')).toBeNull();

    const history = screen.getByRole('region', { name: 'History' });
    const lines = await within(history).findAllByRole('listitem');
    expect(lines.map((line) => line.textContent)).toEqual([
      // On India's clock (IST), whatever the phone's: 12:00 UTC is 5:30 pm.
      'Basic information completed22 Nov 2026, 5:30 pm',
      'Personal information completed22 Nov 2026, 6:00 pm',
      'Basic information updated23 Nov 2026, 5:30 pm',
    ]);
    expect(lines[0]!.textContent).toContain('22 Nov 2026');
    expect(within(lines[0]!).getByText('22 Nov 2026, 5:30 pm')).toHaveAttribute('datetime', new Date(AT_BASE).toISOString());
  });

  it('starts a new borrower at the first step, in Indonesian, with an empty history', async () => {
    fakeApi({ [`GET ${CERT}`]: () => ok(certificationUpTo('base')), [`GET ${LOG_PATH}`]: () => ok([]) }).signIn();
    renderBorrower('/app/certification');
    expect(await screen.findByText('0 dari 5 langkah selesai')).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 1, name: 'Data Anda' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Mulai' })).toHaveAttribute('href', '/app/certification/base');
    expect(await screen.findByText('Belum ada yang disimpan. Setiap langkah muncul di sini setelah Anda menyimpannya.')).toBeInTheDocument();
    const when = new Intl.DateTimeFormat('id-ID', { dateStyle: 'medium', timeStyle: 'short' });
    expect(when.format(AT_BASE)).toContain('22 Nov 2026');
  });

  it('says when every step is done and leads on to the loans', async () => {
    fakeApi({ [`GET ${CERT}`]: () => ok(certificationUpTo(null)), [`GET ${LOG_PATH}`]: () => ok(LOG) }).signIn();
    renderBorrower('/app/certification?lang=1');
    expect(await screen.findByText('5 of 5 steps done')).toBeInTheDocument();
    const complete = screen.getByRole('region', { name: 'All done' });
    expect(within(complete).getByRole('link', { name: 'See the loans' })).toHaveAttribute('href', '/app/home');
    expect(screen.queryByRole('link', { name: /^Continue|^Start/ })).toBeNull();
    expect(screen.getAllByRole('link', { name: /^Edit / })).toHaveLength(5);
  });

  it('shows an error with a retry when the statuses cannot be loaded, and the history’s own', async () => {
    let statuses = () => refusal(503, 'internal', 'Service unavailable.');
    let log = () => refusal(503, 'internal', 'History unavailable.');
    const api = fakeApi({ [`GET ${CERT}`]: () => statuses(), [`GET ${LOG_PATH}`]: () => log() });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/certification?lang=1');
    expect(await screen.findByRole('alert')).toHaveTextContent('Your details could not be loaded.Service unavailable.');

    statuses = () => ok(certificationUpTo('personal'));
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('1 of 5 steps done')).toBeInTheDocument();
    const history = screen.getByRole('region', { name: 'History' });
    expect(await within(history).findByRole('alert')).toHaveTextContent('The history could not be loaded. History unavailable.');

    log = () => ok(LOG.slice(0, 1));
    await user.click(within(history).getByRole('button', { name: 'Try again' }));
    expect(await within(history).findByText('Basic information completed')).toBeInTheDocument();
    expect(api.callsTo('GET', LOG_PATH)).toHaveLength(2);
  });

  it('sends a signed-out visitor to the login screen', async () => {
    fakeApi({ [`GET ${CERT}`]: () => refusal(401, 'unauthorized', 'Please log in.'), 'GET /api/v1/borrower/enums': () => ok(ENUMS_IN) });
    renderBorrower('/app/certification?lang=1');
    expect(await screen.findByRole('heading', { level: 1, name: 'Log in' })).toBeInTheDocument();
  });
});
