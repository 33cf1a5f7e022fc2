import { useTranslation } from 'react-i18next';
import { withLang } from '@/shared/market/market';
import { useMarket } from '@/shared/market/market-context';
import { Link } from '@/shared/router/router';
import { useSettings } from '@/shared/settings/settings-context';

const PROMISES = ['quick', 'flexible', 'privacy', 'service'] as const;

/** The About promises (SPEC.md §1), on the home page and at /about. */
export function AboutPromises({ headingKey, withLink = false }: { headingKey: string; withLink?: boolean }) {
  const { t } = useTranslation();
  const market = useMarket();
  const { companyName } = useSettings();
  return (
    <section className="section about" aria-labelledby="about-title">
      <h2 id="about-title">{t(headingKey, { company: companyName })}</h2>
      {!withLink && <p className="about__intro">{t('about.intro', { company: companyName })}</p>}
      <ul className="about__list">
        {PROMISES.map((key) => (
          <li key={key} className={`about__item about__item--${key}`}>
            <h3>{t(`about.${key}Title`)}</h3>
            <p>{t(`about.${key}Text`)}</p>
          </li>
        ))}
      </ul>
      {withLink && (
        <p>
          <Link className="text-link" href={withLang('/about', market)}>
            {t('about.link', { company: companyName })}
          </Link>
        </p>
      )}
    </section>
  );
}
