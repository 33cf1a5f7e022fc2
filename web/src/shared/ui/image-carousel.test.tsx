import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CAROUSEL_INTERVAL_MS, ImageCarousel, nextSlide, slidePlace, type CarouselImage } from './image-carousel';

const images: CarouselImage[] = ['one', 'two', 'three'].map((name) => ({
  src: `/${name}.webp`,
  srcSet: `/${name}.webp 768w`,
  alt: `Picture ${name}`,
  width: 1200,
  height: 675,
}));

function renderCarousel() {
  return render(
    <ImageCarousel
      images={images}
      sizes="100vw"
      label="Highlights"
      slideLabel={(n, total) => `${n} of ${total}`}
      pauseLabel="Pause the banner"
      playLabel="Play the banner"
    />,
  );
}

const current = () =>
  screen.getAllByRole('group', { hidden: true }).findIndex((slide) => slide.getAttribute('aria-hidden') === 'false');

describe('nextSlide and slidePlace', () => {
  it('advances and wraps from the last slide to the first', () => {
    expect([0, 1, 2].map((i) => nextSlide(i, 3))).toEqual([1, 2, 0]);
    expect(nextSlide(0, 0)).toBe(0);
  });

  it('keeps the next slide on the right, so the loop always moves forward', () => {
    expect([0, 1, 2].map((s) => slidePlace(s, 0, 3))).toEqual([0, 1, -1]);
    expect([0, 1, 2].map((s) => slidePlace(s, 2, 3))).toEqual([1, -1, 0]);
  });
});

describe('ImageCarousel', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('shows the next image every 3 seconds and loops forever', () => {
    renderCarousel();
    expect(CAROUSEL_INTERVAL_MS).toBe(3000);
    const seen = [current()];
    for (let step = 0; step < 7; step += 1) {
      act(() => vi.advanceTimersByTime(2999));
      expect(current()).toBe(seen[seen.length - 1]);
      act(() => vi.advanceTimersByTime(1));
      seen.push(current());
    }
    expect(seen).toEqual([0, 1, 2, 0, 1, 2, 0, 1]);
  });

  it('has no dots, nothing focusable but the pause button, and alt text on every image', () => {
    renderCarousel();
    const banner = screen.getByRole('region', { name: 'Highlights' });
    expect(within(banner).getAllByRole('button')).toHaveLength(1);
    expect(within(banner).queryByRole('tab')).toBeNull();
    const imgs = within(banner).getAllByRole('img', { hidden: true });
    expect(imgs.map((img) => img.getAttribute('alt'))).toEqual(['Picture one', 'Picture two', 'Picture three']);
  });

  it('loads the first image eagerly at high priority and the others lazily', () => {
    renderCarousel();
    const [first, second, third] = screen.getAllByRole('img', { hidden: true });
    expect(first).toHaveAttribute('fetchpriority', 'high');
    expect(first).toHaveAttribute('loading', 'eager');
    expect(second).toHaveAttribute('loading', 'lazy');
    expect(third).toHaveAttribute('loading', 'lazy');
    for (const img of [first, second, third]) {
      expect(img).toHaveAttribute('width', '1200');
      expect(img).toHaveAttribute('height', '675');
      expect(img).toHaveAttribute('sizes', '100vw');
    }
  });

  it('stops while paused and resumes with the play button', () => {
    renderCarousel();
    fireEvent.click(screen.getByRole('button', { name: 'Pause the banner' }));
    act(() => vi.advanceTimersByTime(10_000));
    expect(current()).toBe(0);
    fireEvent.click(screen.getByRole('button', { name: 'Play the banner' }));
    act(() => vi.advanceTimersByTime(3000));
    expect(current()).toBe(1);
  });
});
