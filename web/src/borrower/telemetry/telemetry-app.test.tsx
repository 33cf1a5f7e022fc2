import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, ok, renderBorrower } from '@/test/render-borrower';
import { HOME_ELIGIBLE } from '../screens/home/fixtures.test-data';
import { BURIED_POINTS_PATH, ERRORS_PATH, createTelemetry } from './telemetry';

function recordingTelemetry() {
  const beacons: { url: string; body: Promise<unknown> }[] = [];
  const telemetry = createTelemetry({
    transport: {
      beacon: (url, data) => {
        beacons.push({ url, body: data.text().then((text) => JSON.parse(text)) });
        return true;
      },
      fetch: () => Promise.resolve(undefined),
    },
    route: () => window.location.pathname.replace(/^\/app/, ''),
  });
  return { telemetry, beacons };
}

describe('telemetry in the app', () => {
  it('records the screens a signed-in borrower sees, and nothing before sign-in', async () => {
    fakeApi({ 'GET /api/v1/borrower/home': () => ok(HOME_ELIGIBLE) }).signIn();
    const { telemetry, beacons } = recordingTelemetry();
    renderBorrower('/app/home?lang=1', { telemetry });
    expect(await screen.findByRole('heading', { level: 2, name: 'You can apply now' })).toBeInTheDocument();
    await waitFor(() => expect(telemetry.pending().map((e) => [e.name, e.route])).toEqual([['screen.view', '/home']]));
    telemetry.flush();
    expect(beacons.map((b) => b.url)).toEqual([BURIED_POINTS_PATH]);
    expect(await beacons[0]!.body).toMatchObject({ events: [{ name: 'screen.view', route: '/home' }] });
  });

  it('reports a screen that fails to render through the error boundary', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    // A home answer the screen cannot read makes it throw while rendering.
    fakeApi({ 'GET /api/v1/borrower/home': () => ok({ ...HOME_ELIGIBLE, certification: null }) }).signIn();
    const { telemetry, beacons } = recordingTelemetry();
    renderBorrower('/app/home?lang=1', { telemetry });
    // No borrower call has answered (home failed), so turn it on as an earlier screen's answer would have.
    telemetry.setActive(true);
    expect(await screen.findByRole('button', { name: 'Reload' })).toBeInTheDocument();
    await waitFor(() => expect(beacons.some((b) => b.url === ERRORS_PATH)).toBe(true));
    const report = (await beacons.find((b) => b.url === ERRORS_PATH)!.body) as { message: string; stack: string; route: string };
    expect(report.message).toMatch(/TypeError/);
    expect(report.route).toBe('/home');
    expect(report.stack).toContain('HomeContent');
  });
});
