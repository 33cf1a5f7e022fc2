import { useTranslation } from 'react-i18next';
import { withLang } from '@/shared/market/market';
import { useMarket } from '@/shared/market/market-context';
import { Link } from '@/shared/router/router';

export function NotFound() {
  const { t } = useTranslation();
  const market = useMarket();
  return (
    <section className="section panel" aria-labelledby="not-found-title">
      <h2 id="not-found-title">{t('notFound.title')}</h2>
      <p>{t('notFound.text')}</p>
      <p>
        <Link className="text-link" href={withLang('/', market)}>
          {t('about.back')}
        </Link>
      </p>
    </section>
  );
}
