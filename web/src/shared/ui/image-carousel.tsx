// A hand-made banner instead of antd-mobile's Swiper (~20 KB gzip with its gesture library): the
// banner only needs to advance on a timer and loop, with no dots and no dragging (SPEC.md §2).
// Slides sit side by side; each takes one of three places (previous, current, next) and only moves
// that pass through the viewport animate, so the loop always runs forward: 1, 2, 3, 1, ...
import { useEffect, useRef, useState } from 'react';

export const CAROUSEL_INTERVAL_MS = 3000;

export interface CarouselImage {
  src: string;
  srcSet: string;
  alt: string;
  width: number;
  height: number;
}

/** The slide after `index` among `count`, wrapping from the last to the first. */
export function nextSlide(index: number, count: number): number {
  return count > 0 ? (index + 1) % count : 0;
}

/** Where slide `slide` sits when `current` is shown: 0 shown, 1 waiting on the right, -1 just left. */
export function slidePlace(slide: number, current: number, count: number): -1 | 0 | 1 {
  const offset = (slide - current + count) % count;
  if (offset === 0) return 0;
  return offset === count - 1 && count > 2 ? -1 : 1;
}

/** Advances `index` every `intervalMs` while `running`; the clock starts again when it resumes. */
export function useAutoAdvance(count: number, running: boolean, intervalMs = CAROUSEL_INTERVAL_MS) {
  const [index, setIndex] = useState(0);
  useEffect(() => {
    if (!running || count < 2) return;
    const timer = setInterval(() => setIndex((i) => nextSlide(i, count)), intervalMs);
    return () => clearInterval(timer);
  }, [count, running, intervalMs]);
  return index;
}

interface ImageCarouselProps {
  images: CarouselImage[];
  sizes: string;
  label: string;
  /** e.g. (n, total) => `${n} of ${total}` */
  slideLabel: (n: number, total: number) => string;
  pauseLabel: string;
  playLabel: string;
  intervalMs?: number;
}

export function ImageCarousel({ images, sizes, label, slideLabel, pauseLabel, playLabel, intervalMs }: ImageCarouselProps) {
  const [paused, setPaused] = useState(false);
  const index = useAutoAdvance(images.length, !paused, intervalMs);
  const count = images.length;

  // The first image is the LCP element: fetched at high priority. The others start lazy and are
  // switched to eager one step ahead of being shown, once the first has loaded; a lazy image
  // clipped by the banner's overflow would otherwise only load while it slides in.
  const [firstLoaded, setFirstLoaded] = useState(false);
  const firstImage = useRef<HTMLImageElement>(null);
  useEffect(() => {
    const img = firstImage.current;
    if (!img) return;
    if (img.complete) {
      const id = requestAnimationFrame(() => setFirstLoaded(true));
      return () => cancelAnimationFrame(id);
    }
    const done = () => setFirstLoaded(true);
    img.addEventListener('load', done, { once: true });
    return () => img.removeEventListener('load', done);
  }, []);
  const eager = (i: number) => i === 0 || (firstLoaded && i <= index + 1);

  return (
    <section className="kilat-carousel" aria-roledescription="carousel" aria-label={label}>
      <div className="kilat-carousel__viewport" aria-live="off">
        {images.map((image, i) => {
          const place = slidePlace(i, index, count);
          return (
            <div
              key={image.src}
              className={`kilat-carousel__slide kilat-carousel__slide--${place === 0 ? 'current' : place < 0 ? 'prev' : 'next'}`}
              role="group"
              aria-roledescription="slide"
              aria-label={slideLabel(i + 1, count)}
              aria-hidden={place !== 0}
            >
              <img
                ref={i === 0 ? firstImage : undefined}
                src={image.src}
                srcSet={image.srcSet}
                sizes={sizes}
                width={image.width}
                height={image.height}
                alt={image.alt}
                decoding={i === 0 ? 'sync' : 'async'}
                draggable={false}
                fetchPriority={i === 0 ? 'high' : 'auto'}
                loading={eager(i) ? 'eager' : 'lazy'}
              />
            </div>
          );
        })}
      </div>
      {count > 1 && (
        <button
          type="button"
          className="kilat-carousel__toggle"
          aria-label={paused ? playLabel : pauseLabel}
          onClick={() => setPaused((p) => !p)}
        >
          <span aria-hidden="true" className={paused ? 'kilat-icon-play' : 'kilat-icon-pause'} />
        </button>
      )}
    </section>
  );
}
