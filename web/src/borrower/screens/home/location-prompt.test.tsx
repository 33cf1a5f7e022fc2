import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeApi, ok, renderBorrower } from '@/test/render-borrower';
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
});
