import { useTranslation } from 'react-i18next';
import { useMarket } from '@/shared/market/market-context';
import { formatMoney } from '@/shared/money/format-money';
import { OFFER_FIGURES } from '../offer-figures';

export function OfferSummary() {
  const { t } = useTranslation();
  const market = useMarket();
  const offer = OFFER_FIGURES[market.id];
  const money = (minor: number | undefined) => (minor === undefined ? '' : formatMoney(minor, market));
  return (
    <section className="offer" aria-labelledby="offer-title">
      <h2 id="offer-title" className="offer__title">
        {t('hero.title', { min: money(offer.minAmount), max: money(offer.maxAmount) })}
      </h2>
      <p className="offer__lead">{t('hero.lead', { hours: offer.payoutHours })}</p>
      <ul className="offer__facts">
        {offer.minMonthlySalary !== undefined && <li>{t('hero.audience', { salary: money(offer.minMonthlySalary) })}</li>}
        {offer.minAnnualIncome !== undefined && <li>{t('hero.audience', { income: money(offer.minAnnualIncome) })}</li>}
        {offer.usersMillions !== undefined && <li>{t('hero.users', { count: offer.usersMillions })}</li>}
      </ul>
    </section>
  );
}
