import { useMarket } from '@/shared/market/market-context';
import { useSiteSettings } from '../api/site-settings';

/** The app's name in the market's language (runtime settings, PRODUCT.md §2); empty until settings load. */
export function useAppName(): string {
  const market = useMarket();
  const { data } = useSiteSettings();
  if (!data) return '';
  return market.id === 'in' ? data.appNameEn : data.appNameId;
}
