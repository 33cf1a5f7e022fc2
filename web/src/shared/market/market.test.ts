import { describe, expect, it } from 'vitest';
import { MARKETS, marketFromSearch, withLang } from './market';

describe('marketFromSearch', () => {
  it('selects India only for lang=1', () => {
    expect(marketFromSearch('?lang=1').id).toBe('in');
    expect(marketFromSearch('?lang=1').locale).toBe('en-IN');
    for (const search of ['', '?lang=0', '?lang=2', '?lang=en', '?other=1']) expect(marketFromSearch(search).id).toBe('id');
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
