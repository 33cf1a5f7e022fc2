import { useTranslation } from 'react-i18next';
import { withLang } from '@/shared/market/market';
import { useMarket } from '@/shared/market/market-context';
import { Link } from '@/shared/router/router';
import { AboutPromises } from './about-promises';

export function AboutPage() {
  const { t } = useTranslation();
  const market = useMarket();
  return (
    <div className="panel">
      <AboutPromises headingKey="about.pageTitle" />
      <p className="section back-link">
        <Link className="text-link" href={withLang('/', market)}>
          {t('about.back')}
        </Link>
      </p>
    </div>
  );
}
