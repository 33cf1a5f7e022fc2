import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '@/shared/api/http';
import { errorText } from '@/shared/api/error-text';
import { useSaveSiteClaims, useSiteClaims } from '../api/content';
import type { SiteClaims } from '../api/types';
import { dateTime, marketName } from '../format';
import { useOperatorMarkets } from '../operator-context';
import { LoadFailed, Loading } from './states';

/** The server's bound (claims::MAX_CLAIM_CHARS). */
export const MAX_CLAIM_CHARS = 120;

/** Each market's claims on the public site: what they say now, who changed them, and their edit. */
export function SiteScreen() {
  const { t } = useTranslation();
  const claims = useSiteClaims();
  // Each market's claims are its lender's: an admin edits those of the markets they work in.
  const markets = useOperatorMarkets();
  return (
    <section>
      <div className="page-head">
        <h1>{t('site.title')}</h1>
      </div>
      <p className="muted">{t('site.intro')}</p>
      {claims.isPending ? (
        <Loading label={t('site.loading')} />
      ) : claims.isError ? (
        <LoadFailed error={claims.error} onRetry={() => void claims.refetch()} />
      ) : claims.data.length === 0 ? (
        <p className="empty">{t('site.empty')}</p>
      ) : (
        // India first, as on every screen with both markets.
        [...claims.data]
          .filter((c) => markets.includes(c.market))
          .sort((a, b) => b.market.localeCompare(a.market))
          .map((c) => <ClaimsForm key={c.market} claims={c} />)
      )}
    </section>
  );
}

function ClaimsForm({ claims }: { claims: SiteClaims }) {
  const { t } = useTranslation();
  const save = useSaveSiteClaims();
  const [payoutClaim, setPayoutClaim] = useState(claims.payoutClaim);
  const [usersClaim, setUsersClaim] = useState(claims.usersClaim);
  const [saved, setSaved] = useState(false);
  const fields: Record<string, string> = save.error instanceof ApiError ? save.error.fields : {};
  const market = marketName(claims.market, t);
  const id = (name: string) => `site-${claims.market}-${name}`;

  function submit(event: FormEvent) {
    event.preventDefault();
    setSaved(false);
    save.mutate(
      { market: claims.market, claims: { payoutClaim, usersClaim } },
      {
        onSuccess: (stored) => {
          // What the server stored (trimmed): the inputs show exactly what the site shows.
          setPayoutClaim(stored.payoutClaim);
          setUsersClaim(stored.usersClaim);
          setSaved(true);
        },
      },
    );
  }

  const claimField = (name: 'payoutClaim' | 'usersClaim', value: string, set: (v: string) => void) => (
    <div className="field">
      <label htmlFor={id(name)}>{t(`site.${name}`)}</label>
      <input
        id={id(name)}
        value={value}
        maxLength={MAX_CLAIM_CHARS * 2}
        onChange={(e) => set(e.target.value)}
        aria-invalid={Boolean(fields[name])}
        aria-describedby={`${id(name)}-help`}
      />
      <p id={`${id(name)}-help`} className={fields[name] ? 'field-error' : 'muted'}>
        {fields[name] ?? (value.trim() === '' ? t('site.withdrawn') : t('site.chars', { count: value.trim().length, max: MAX_CLAIM_CHARS }))}
      </p>
    </div>
  );

  return (
    <form className="panel" onSubmit={submit} aria-label={t('site.claimsOf', { market })}>
      <h2>{t('site.claimsOf', { market })}</h2>
      <p className="muted">
        {claims.updatedBy
          ? t('site.changedBy', { username: claims.updatedBy, at: dateTime(claims.updatedAt) })
          : t('site.fromSettings')}
      </p>
      {saved && (
        <p role="status" className="notice notice--success">
          {t('site.saved', { market })}
        </p>
      )}
      {claimField('payoutClaim', payoutClaim, setPayoutClaim)}
      {claimField('usersClaim', usersClaim, setUsersClaim)}
      {save.isError && !fields.payoutClaim && !fields.usersClaim && (
        <p className="field-error" role="alert">
          {errorText(save.error, t)}
        </p>
      )}
      <button type="submit" className="button button--primary" disabled={save.isPending}>
        {t('site.save', { market })}
      </button>
    </form>
  );
}
