import { useTranslation } from 'react-i18next';
import { useMarket } from '@/shared/market/market-context';
import { formatMoney } from '@/shared/money/format-money';
import { useSettings } from '@/shared/settings/settings-context';
import { appLoginHref } from '../app-links';
import { OFFER_FIGURES } from '../offer-figures';

export function OfferSummary() {
  const { t } = useTranslation();
  const market = useMarket();
  const settings = useSettings();
  const offer = OFFER_FIGURES[market.id];
  const money = (minor: number | undefined) => (minor === undefined ? '' : formatMoney(minor, market));
  return (
    <section className="offer" aria-labelledby="offer-title">
      <h2 id="offer-title" className="offer__title">
        {t('hero.title', { min: money(offer.minAmount), max: money(offer.maxAmount) })}
      </h2>
      <p className="offer__lead">{t('hero.lead')}</p>
      <ul className="offer__facts">
        {/* The claims are settings an operator can empty (then the item is hidden by CSS, so the prerendered page
            and the hydrated one stay the same). */}
        <li className="offer__claim">{settings.payoutClaim}</li>
        {offer.minMonthlySalary !== undefined && <li>{t('hero.audience', { salary: money(offer.minMonthlySalary) })}</li>}
        {offer.minAnnualIncome !== undefined && <li>{t('hero.audience', { income: money(offer.minAnnualIncome) })}</li>}
        <li className="offer__claim">{settings.usersClaim}</li>
      </ul>
      <p className="offer__actions">
        <a className="button offer__apply" href={appLoginHref(market)}>
          {t('hero.apply')}
        </a>
        <a className="offer__login" href={appLoginHref(market)}>
          {t('hero.login')}
        </a>
      </p>
    </section>
  );
}
