import { describe, expect, it } from 'vitest';
import { MARKETS, MARKET_STORAGE_KEY, marketForVisit, marketFromSearch, marketOfCurrency, withLang } from './market';

describe('marketFromSearch', () => {
  it('selects India only for lang=1', () => {
    expect(marketFromSearch('?lang=1').id).toBe('in');
    expect(marketFromSearch('?lang=1').locale).toBe('en-IN');
    for (const search of ['', '?lang=0', '?lang=2', '?lang=en', '?other=1']) expect(marketFromSearch(search).id).toBe('id');
  });
});

describe('marketOfCurrency', () => {
  it('is the market whose money is in the currency', () => {
    expect(marketOfCurrency('INR')).toBe(MARKETS.in);
    expect(marketOfCurrency('IDR')).toBe(MARKETS.id);
  });
});

describe('withLang', () => {
  it('adds lang=1 for India and keeps the rest of the link', () => {
    expect(withLang('/', MARKETS.in)).toBe('/?lang=1');
    expect(withLang('/about', MARKETS.in)).toBe('/about?lang=1');
    expect(withLang('/#contact', MARKETS.in)).toBe('/?lang=1#contact');
    expect(withLang('/x?a=b', MARKETS.in)).toBe('/x?a=b&lang=1');
  });

  it('drops lang for Indonesia', () => {
    expect(withLang('/about?lang=1', MARKETS.id)).toBe('/about');
    expect(withLang('/?lang=1#contact', MARKETS.id)).toBe('/#contact');
  });
});

describe('marketForVisit', () => {
  it('takes the market from lang and keeps it for later pages without the parameter', () => {
    const storage = window.sessionStorage;
    storage.clear();
    expect(marketForVisit('', storage).id).toBe('id');
    expect(marketForVisit('?lang=1', storage).id).toBe('in');
    expect(storage.getItem(MARKET_STORAGE_KEY)).toBe('in');
    expect(marketForVisit('', storage).id).toBe('in');
    expect(marketForVisit('?sessionId=x', storage).id).toBe('in');
    expect(marketForVisit('?lang=0', storage).id).toBe('id');
    expect(marketForVisit('', storage).id).toBe('id');
    storage.clear();
  });

  it('works when storage refuses to be used', () => {
    const broken = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('denied');
      },
    };
    expect(marketForVisit('?lang=1', broken).id).toBe('in');
    expect(marketForVisit('', broken).id).toBe('id');
    expect(marketForVisit('', null).id).toBe('id');
  });
});
