import { Button } from 'antd-mobile';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorText } from '@/shared/api/error-text';
import { useSaveLocation } from '../../api/location';
import type { LocationStatus } from '../../api/types';

/** Tenths of a degree (about 11 km): a city, never a street. The server rounds again. */
export function coarse(degrees: number): number {
  return Math.round(degrees * 10) / 10;
}

/**
 * The location prompt (PRODUCT.md §2): optional, asked once, saying why before the browser's own prompt. A
 * "no" is recorded so it is never asked again; so is a browser that refuses or cannot tell. `status` is the answer of
 * `GET /location`, asked by home beside its own (undefined when that failed: no prompt then).
 */
export function LocationPrompt({
  status,
  geolocation = typeof navigator === 'undefined' ? undefined : navigator.geolocation,
}: {
  status: LocationStatus | undefined;
  geolocation?: Geolocation;
}) {
  const { t } = useTranslation();
  const save = useSaveLocation();
  const [locating, setLocating] = useState(false);
  if (!status || status.asked || save.isSuccess) return null;

  const refuse = () => save.mutate({ consent: false });
  const share = () => {
    if (!geolocation) return refuse();
    setLocating(true);
    geolocation.getCurrentPosition(
      (position) => {
        setLocating(false);
        save.mutate({ consent: true, latitude: coarse(position.coords.latitude), longitude: coarse(position.coords.longitude) });
      },
      () => {
        setLocating(false);
        refuse();
      },
      { enableHighAccuracy: false, maximumAge: 3_600_000, timeout: 20_000 },
    );
  };
  return (
    <section className="card location-prompt" aria-labelledby="location-prompt">
      <h2 className="kfs__heading" id="location-prompt">
        {t('location.title')}
      </h2>
      <p className="home__text">{t('location.why')}</p>
      <p className="home__text">{t('location.once')}</p>
      <div className="location-prompt__actions">
        <Button color="primary" size="small" loading={locating || save.isPending} onClick={share}>
          {t('location.share')}
        </Button>
        <Button size="small" fill="outline" disabled={locating || save.isPending} onClick={refuse}>
          {t('location.refuse')}
        </Button>
      </div>
      {/* The answer was not recorded (a lost connection, say): the buttons are back to answer again. */}
      {save.isError && (
        <p className="location-prompt__problem" role="alert">
          {errorText(save.error, t)}
        </p>
      )}
    </section>
  );
}
