import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ME_IN, deferred, fakeApi, ok, refusal, renderBorrower } from '@/test/render-borrower';

const LOCATION = '/api/v1/borrower/location';
const DEVICE = '/api/v1/borrower/device';

/** A location shared until `DELETE /location` withdraws it, as the server keeps it. */
function sharedLocation() {
  let granted = true;
  return {
    [`GET ${LOCATION}`]: () => ok({ asked: true, granted }),
    [`DELETE ${LOCATION}`]: () => {
      granted = false;
      return ok({ asked: true, granted });
    },
  };
}

describe('the permissions page', () => {
  it('is linked from the me menu', async () => {
    const api = fakeApi({ [`GET ${LOCATION}`]: () => ok({ asked: true, granted: false }) });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/me?lang=1');
    const link = await screen.findByRole('link', { name: 'Your permissions' });
    expect(link).toHaveAttribute('href', '/app/permissions');
    // Among the app's own entries: deleting the account stays the last one.
    const entries = within(screen.getByRole('heading', { level: 2, name: 'Menu' }).closest('.adm-list') as HTMLElement).getAllByRole('link');
    expect(entries.at(-1)).toHaveTextContent('Delete account');
    await user.click(link);
    expect(await screen.findByRole('heading', { level: 1, name: 'Your permissions' })).toBeInTheDocument();
    expect(window.location.pathname).toBe('/app/permissions');
  });

  it('is the server menu’s entry, in its words, when the server lists it', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/menu': () =>
        ok([
          { key: 'loans', title: 'My loans', route: '/orders', action: 'navigate', danger: false },
          { key: 'permissions', title: 'Permissions (server)', route: '/permissions', action: 'navigate', danger: false },
        ]),
    });
    api.signIn();
    renderBorrower('/app/me?lang=1');
    expect(await screen.findByRole('link', { name: 'Permissions (server)' })).toHaveAttribute('href', '/app/permissions');
    expect(screen.queryByRole('link', { name: 'Your permissions' })).not.toBeInTheDocument();
  });

  it('stops sharing a granted location after confirming, and says the location was deleted', async () => {
    const api = fakeApi(sharedLocation());
    api.signIn();
    const user = userEvent.setup({ pointerEventsCheck: 0 });
    const { app } = renderBorrower('/app/permissions?lang=1');
    expect(await screen.findByRole('heading', { level: 2, name: 'Your location' })).toBeInTheDocument();
    expect(await screen.findByText('You shared your location, rounded to about 11 km.')).toBeInTheDocument();

    // Keeping it changes nothing.
    await user.click(screen.getByRole('button', { name: 'Stop sharing my location' }));
    expect(await screen.findByText('Stop sharing your location?')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Keep sharing' }));
    await waitFor(() => expect(screen.queryByText('Stop sharing your location?')).not.toBeInTheDocument());
    expect(api.callsTo('DELETE', LOCATION)).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Stop sharing my location' }));
    await user.click(await screen.findByRole('button', { name: 'Stop sharing' }));
    const location = screen.getByRole('region', { name: 'Your location' });
    // Said in the section's live region, which was in the page before the words came.
    expect(await within(location).findByText('Your location was deleted.')).toHaveAttribute('role', 'status');
    expect(await within(location).findByText('You have not shared your location.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Stop sharing my location' })).not.toBeInTheDocument();
    expect(api.callsTo('DELETE', LOCATION)).toHaveLength(1);
    // The status the app keeps (home's prompt reads it) is the refusal: the prompt is not shown again.
    await waitFor(() => expect(app.queryClient.getQueryData(['borrower', 'location'])).toEqual({ asked: true, granted: false }));
  });

  it('offers nothing to stop when the location was not shared', async () => {
    const api = fakeApi({ [`GET ${LOCATION}`]: () => ok({ asked: true, granted: false }) });
    api.signIn();
    renderBorrower('/app/permissions?lang=1');
    expect(await screen.findByText('You have not shared your location.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Stop sharing my location' })).not.toBeInTheDocument();
    // The phone's details are still there to delete.
    expect(screen.getByRole('button', { name: 'Delete my phone details' })).toBeEnabled();
  });

  it('keeps the page usable and says why when stopping fails', async () => {
    const api = fakeApi({
      [`GET ${LOCATION}`]: () => ok({ asked: true, granted: true }),
      [`DELETE ${LOCATION}`]: () => refusal(500, 'internal', 'Something went wrong on our side.'),
    });
    api.signIn();
    const user = userEvent.setup({ pointerEventsCheck: 0 });
    renderBorrower('/app/permissions?lang=1');
    await user.click(await screen.findByRole('button', { name: 'Stop sharing my location' }));
    await user.click(await screen.findByRole('button', { name: 'Stop sharing' }));
    expect(await screen.findByTestId('toast')).toHaveTextContent('Something went wrong on our side.');
    expect(await screen.findByRole('button', { name: 'Stop sharing my location' })).toBeEnabled();
    expect(screen.getByText('You shared your location, rounded to about 11 km.')).toBeInTheDocument();
    expect(screen.queryByText('Your location was deleted.')).not.toBeInTheDocument();
  });

  it('shows an error state with a retry when the location status cannot be loaded', async () => {
    let fail = true;
    const api = fakeApi({
      [`GET ${LOCATION}`]: () => (fail ? refusal(503, 'internal', 'Service unavailable.') : ok({ asked: true, granted: true })),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/permissions?lang=1');
    expect(await screen.findByRole('alert')).toHaveTextContent('We could not check whether you shared your location.');
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('button', { name: 'Stop sharing my location' })).toBeInTheDocument();
  });

  it('deletes the phone details once, showing loading meanwhile, and says they were deleted', async () => {
    const pending = deferred();
    const api = fakeApi({
      [`GET ${LOCATION}`]: () => ok({ asked: false, granted: false }),
      [`DELETE ${DEVICE}`]: () => pending.promise,
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/permissions?lang=1');
    expect(
      await screen.findByText(
        "If you use the Kilat app, it may keep your phone's model, system version and app version, with your consent, to fix problems.",
      ),
    ).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Delete my phone details' }));
    const working = await screen.findByRole('button', { name: 'Deleting…' });
    expect(working).toBeDisabled();
    pending.resolve(ok({ forgotten: true }));
    const device = screen.getByRole('region', { name: "Your phone's details" });
    expect(await within(device).findByText('Your phone details were deleted.')).toHaveAttribute('role', 'status');
    expect(api.callsTo('DELETE', DEVICE)).toHaveLength(1);
    expect(screen.getByRole('button', { name: 'Delete my phone details' })).toBeEnabled();
  });

  it('says no phone details were kept when there were none', async () => {
    const api = fakeApi({
      [`GET ${LOCATION}`]: () => ok({ asked: true, granted: false }),
      [`DELETE ${DEVICE}`]: () => ok({ forgotten: false }),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/permissions?lang=1');
    await user.click(await screen.findByRole('button', { name: 'Delete my phone details' }));
    expect(await screen.findByText('No phone details were kept.')).toBeInTheDocument();
    expect(screen.queryByText('Your phone details were deleted.')).not.toBeInTheDocument();
    expect(api.callsTo('DELETE', DEVICE)).toHaveLength(1);
  });

  it('says when deleting the phone details fails, and can be tried again', async () => {
    let fail = true;
    const api = fakeApi({
      [`GET ${LOCATION}`]: () => ok({ asked: true, granted: false }),
      [`DELETE ${DEVICE}`]: () => (fail ? refusal(500, 'internal', 'Something went wrong on our side.') : ok({ forgotten: true })),
    });
    api.signIn();
    const user = userEvent.setup();
    renderBorrower('/app/permissions?lang=1');
    await user.click(await screen.findByRole('button', { name: 'Delete my phone details' }));
    expect(await screen.findByTestId('toast')).toHaveTextContent('Something went wrong on our side.');
    fail = false;
    await user.click(await screen.findByRole('button', { name: 'Delete my phone details' }));
    expect(await screen.findByText('Your phone details were deleted.')).toBeInTheDocument();
    expect(api.callsTo('DELETE', DEVICE)).toHaveLength(2);
  });

  it('speaks Indonesian to an Indonesian borrower', async () => {
    const api = fakeApi({
      'GET /api/v1/borrower/me': () => ok({ ...ME_IN, phoneMasked: '+62 *******7890', market: 'ID' }),
      ...sharedLocation(),
      [`DELETE ${DEVICE}`]: () => ok({ forgotten: false }),
    });
    api.signIn();
    const user = userEvent.setup({ pointerEventsCheck: 0 });
    renderBorrower('/app/me');
    await user.click(await screen.findByRole('link', { name: 'Izin dan privasi' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Izin dan privasi' })).toBeInTheDocument();
    expect(await screen.findByText('Anda membagikan lokasi Anda, dibulatkan hingga sekitar 11 km.')).toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 2, name: 'Data ponsel Anda' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Berhenti membagikan lokasi saya' }));
    expect(await screen.findByText('Berhenti membagikan lokasi Anda?')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Berhenti membagikan' }));
    expect(await screen.findByText('Lokasi Anda sudah dihapus.')).toBeInTheDocument();
    expect(await screen.findByText('Anda tidak membagikan lokasi Anda.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Hapus data ponsel saya' }));
    expect(await screen.findByText('Tidak ada data ponsel yang disimpan.')).toBeInTheDocument();
  });
});
