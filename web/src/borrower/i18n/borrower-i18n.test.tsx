import { render, screen } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it, vi } from 'vitest';
import { TextsFailedPage } from '../screens/error/error-page';
import { createBorrowerI18n, loadBorrowerI18n, loadPartTexts } from './borrower-i18n';

// Which catalog modules were evaluated: the entry holds none, and the app never fetches the other language's
// (issue 19's budget for the first view).
const { evaluated, evaluating } = vi.hoisted(() => {
  const evaluated: string[] = [];
  const evaluating = (name: string) => (original: () => Promise<unknown>) => {
    evaluated.push(name);
    return original();
  };
  return { evaluated, evaluating };
});
vi.mock('./en.json', evaluating('en.json'));
vi.mock('./id.json', evaluating('id.json'));
vi.mock('./parts-en', evaluating('parts-en'));
vi.mock('./parts-id', evaluating('parts-id'));

describe('the borrower texts', () => {
  it('fetch the market’s language only: the first texts at boot, the other screens’ when one shows', async () => {
    expect(evaluated).toEqual([]);
    const i18n = await loadBorrowerI18n('id');
    expect(evaluated).toEqual(['id.json']);
    expect(i18n.t('login.title')).toBe('Masuk');
    expect(i18n.exists('orders.title')).toBe(false);

    await loadPartTexts(i18n);
    expect(evaluated).toEqual(['id.json', 'parts-id']);
    expect(i18n.t('orders.title')).toBe('Pinjaman saya');
    expect(i18n.t('login.title')).toBe('Masuk');
    expect(i18n.hasResourceBundle('en', 'borrower')).toBe(false);
  });

  it('can still say the app failed, in the market’s language, without its catalog', () => {
    render(
      <I18nextProvider i18n={createBorrowerI18n('id')}>
        <TextsFailedPage />
      </I18nextProvider>,
    );
    expect(screen.getByRole('alert')).toHaveTextContent('Terjadi kesalahan');
    expect(screen.getByRole('button', { name: 'Muat ulang' })).toBeInTheDocument();
  });
});
