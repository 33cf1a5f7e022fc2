import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeApi, ok, refusal, renderBorrower } from '@/test/render-borrower';
import { HOME_ELIGIBLE } from './fixtures.test-data';

const LOCATION = '/api/v1/borrower/location';

function withGeolocation(geolocation: Partial<Geolocation> | undefined) {
  Object.defineProperty(navigator, 'geolocation', { value: geolocation, configurable: true });
}

afterEach(() => withGeolocation(undefined));

describe('location prompt', () => {
  it('says why before asking, and records a refusal so it never asks again', async () => {
    let asked = false;
    const api = fakeApi({
      'GET /api/v1/borrower/home': () => ok(HOME_ELIGIBLE),
      [`GET ${LOCATION}`]: () => ok({ asked, granted: false }),
      [`POST ${LOCATION}`]: () => {
        asked = true;
        return ok({ recorded: true });
      },
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/home?lang=1');
    const prompt = (await screen.findByRole('heading', { level: 2, name: 'Share your city?' })).closest('section')!;
    expect(prompt).toHaveTextContent('your city, to about 11 km, never your street');
    expect(prompt).toHaveTextContent('If you say no, we will not ask again.');

    await user.click(screen.getByRole('button', { name: 'No, thanks' }));
    await waitFor(() => expect(screen.queryByRole('heading', { name: 'Share your city?' })).toBeNull());
    expect(api.callsTo('POST', LOCATION).map((call) => call.body)).toEqual([{ consent: false }]);
  });

  it('sends only a coarse position after the borrower agrees', async () => {
    withGeolocation({
      getCurrentPosition: (success) =>
        success({ coords: { latitude: -6.20881, longitude: 106.84559 } } as GeolocationPosition),
    });
    const api = fakeApi({
      'GET /api/v1/borrower/home': () => ok(HOME_ELIGIBLE),
      [`GET ${LOCATION}`]: () => ok({ asked: false, granted: false }),
      [`POST ${LOCATION}`]: () => ok({ recorded: true }),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/home?lang=1');
    await user.click(await screen.findByRole('button', { name: 'Share my city' }));
    await waitFor(() => expect(api.callsTo('POST', LOCATION)).toHaveLength(1));
    expect(api.callsTo('POST', LOCATION)[0]!.body).toEqual({ consent: true, latitude: -6.2, longitude: 106.8 });
  });

  it('is not shown once answered', async () => {
    fakeApi({
      'GET /api/v1/borrower/home': () => ok(HOME_ELIGIBLE),
      [`GET ${LOCATION}`]: () => ok({ asked: true, granted: false }),
    }).signIn();
    renderBorrower('/app/home?lang=1');
    expect(await screen.findByRole('heading', { level: 2, name: 'You can apply now' })).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('heading', { name: 'Share your city?' })).toBeNull());
  });

  it('comes in with home, never after it: the loans on offer do not move down under a finger on its way to one', async () => {
    let answerLocation: (answer: Response) => void = () => {};
    const api = fakeApi({
      'GET /api/v1/borrower/home': () => ok(HOME_ELIGIBLE),
      [`GET ${LOCATION}`]: () => new Promise<Response>((resolve) => (answerLocation = resolve)),
    });
    api.signIn();
    renderBorrower('/app/home?lang=1');
    // Home has answered; the prompt's question has not: nothing is drawn yet.
    await waitFor(() => expect(api.callsTo('GET', LOCATION)).toHaveLength(1));
    await waitFor(() => expect(api.callsTo('GET', '/api/v1/borrower/home')).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByRole('heading', { level: 2, name: 'Loans on offer' })).toBeNull();
    expect(screen.getByText('Loading…')).toBeInTheDocument();

    answerLocation(ok({ asked: false, granted: false }));
    const prompt = await screen.findByRole('heading', { level: 2, name: 'Share your city?' });
    const offers = screen.getByRole('heading', { level: 2, name: 'Loans on offer' });
    expect(prompt.compareDocumentPosition(offers) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it.each([
    ['/app/home?lang=1', 'No, thanks', 'We could not reach the server. Check your connection and try again.'],
    ['/app/home?lang=2', 'Tidak, terima kasih', 'Server tidak dapat dihubungi. Periksa koneksi Anda dan coba lagi.'],
  ])('says so when the answer could not be sent (%s), and it can be given again', async (url, refuse, text) => {
    let online = false;
    const api = fakeApi({
      'GET /api/v1/borrower/home': () => ok(HOME_ELIGIBLE),
      [`GET ${LOCATION}`]: () => ok({ asked: online, granted: false }),
      [`POST ${LOCATION}`]: () => (online ? ok({ recorded: true }) : Promise.reject(new TypeError('Failed to fetch'))),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower(url);
    await user.click(await screen.findByRole('button', { name: refuse }));

    expect(await screen.findByRole('alert')).toHaveTextContent(text);
    expect(screen.getByRole('button', { name: refuse })).toBeEnabled();

    online = true;
    await user.click(screen.getByRole('button', { name: refuse }));
    await waitFor(() => expect(screen.queryByRole('button', { name: refuse })).toBeNull());
    expect(screen.queryByRole('alert')).toBeNull();
    expect(api.callsTo('POST', LOCATION)).toHaveLength(2);
  });

  it('holds nothing up when its question fails: home shows without it', async () => {
    fakeApi({
      'GET /api/v1/borrower/home': () => ok(HOME_ELIGIBLE),
      [`GET ${LOCATION}`]: () => refusal(500, 'internal', 'Something went wrong.'),
    }).signIn();
    renderBorrower('/app/home?lang=1');
    expect(await screen.findByRole('heading', { level: 2, name: 'Loans on offer' })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Share your city?' })).toBeNull();
  });
});
