import { describe, expect, it } from 'vitest';
import { normalizePath } from './router';

describe('normalizePath', () => {
  it('reads a page asked for by its file name, either market’s, as the page the server serves for it', () => {
    expect(normalizePath('/about')).toBe('/about');
    expect(normalizePath('/about/')).toBe('/about');
    expect(normalizePath('/about.html')).toBe('/about');
    expect(normalizePath('/about.en.html')).toBe('/about');
    expect(normalizePath('/index.html')).toBe('/');
    expect(normalizePath('/index.en.html')).toBe('/');
    expect(normalizePath('/')).toBe('/');
  });
});
