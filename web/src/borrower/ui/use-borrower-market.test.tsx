import { renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { MARKETS, marketForVisit, type Market } from '@/shared/market/market';
import { MarketProvider } from '@/shared/market/market-context';
import { urlInMarket, useFollowBorrowerMarket } from './use-borrower-market';

const inMarket = (market: Market) =>
  function Wrapper({ children }: { children: ReactNode }) {
    return <MarketProvider market={market}>{children}</MarketProvider>;
  };

describe('following the borrower’s market', () => {
  it('opens the page again in India for an Indian borrower on the Indonesian app', () => {
    const reload = vi.fn();
    renderHook(() => useFollowBorrowerMarket('IN', reload), { wrapper: inMarket(MARKETS.id) });
    expect(reload).toHaveBeenCalledTimes(1);
    const href = reload.mock.calls[0]![0] as string;
    expect(new URL(href).searchParams.get('lang')).toBe('1');
  });

  it('and in Indonesia for an Indonesian borrower on the Indian app, remembering the choice', () => {
    const reload = vi.fn();
    renderHook(() => useFollowBorrowerMarket('ID', reload), { wrapper: inMarket(MARKETS.in) });
    const href = reload.mock.calls[0]![0] as string;
    const stored = new Map<string, string>();
    const storage = { getItem: (k: string) => stored.get(k) ?? null, setItem: (k: string, v: string) => void stored.set(k, v) };
    expect(marketForVisit(new URL(href).search, storage)).toBe(MARKETS.id);
    expect(marketForVisit('', storage)).toBe(MARKETS.id);
  });

  it('does nothing when the markets agree or the market is not known yet', () => {
    const reload = vi.fn();
    renderHook(() => useFollowBorrowerMarket('IN', reload), { wrapper: inMarket(MARKETS.in) });
    renderHook(() => useFollowBorrowerMarket(undefined, reload), { wrapper: inMarket(MARKETS.id) });
    expect(reload).not.toHaveBeenCalled();
  });

  it('keeps the path and the other query parameters', () => {
    const href = urlInMarket('https://kilat.example/app/orders/KL-1?sessionId=abc&lang=0#top', MARKETS.in);
    expect(href).toBe('https://kilat.example/app/orders/KL-1?sessionId=abc&lang=1#top');
  });
});
