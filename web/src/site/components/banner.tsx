import { useTranslation } from 'react-i18next';
import { ImageCarousel, type CarouselImage } from '@/shared/ui/image-carousel';
import a480 from '../assets/banner-cash-480.webp';
import a768 from '../assets/banner-cash-768.webp';
import a1200 from '../assets/banner-cash-1200.webp';
import b480 from '../assets/banner-calendar-480.webp';
import b768 from '../assets/banner-calendar-768.webp';
import b1200 from '../assets/banner-calendar-1200.webp';
import c480 from '../assets/banner-shield-480.webp';
import c768 from '../assets/banner-shield-768.webp';
import c1200 from '../assets/banner-shield-1200.webp';

// 16:9 artwork from art/banners (see art/render-banners.sh), in three widths: a 360-412 px phone at
// DPR 1.75-2 takes the 768 one, a desktop at 1040 px the 1200 one.
const WIDTH = 1200;
const HEIGHT = 675;
const sources = [
  [a480, a768, a1200],
  [b480, b768, b1200],
  [c480, c768, c1200],
] as const;

export const BANNER_SIZES = '(min-width: 1040px) 1040px, 100vw';

export function Banner() {
  const { t } = useTranslation();
  const images: CarouselImage[] = sources.map(([small, medium, large], i) => ({
    src: medium,
    srcSet: `${small} 480w, ${medium} 768w, ${large} 1200w`,
    alt: t(`banner.alt${i + 1}`),
    width: WIDTH,
    height: HEIGHT,
  }));
  return (
    <ImageCarousel
      images={images}
      sizes={BANNER_SIZES}
      label={t('banner.label')}
      slideLabel={(n, total) => t('banner.slide', { n, total })}
      pauseLabel={t('banner.pause')}
      playLabel={t('banner.play')}
    />
  );
}
