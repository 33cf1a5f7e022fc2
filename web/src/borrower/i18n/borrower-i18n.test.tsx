import { render, screen } from '@testing-library/react';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it, vi } from 'vitest';
import { TextsFailedPage } from '../screens/error/error-page';
import { createBorrowerI18n, loadBorrowerI18n } from './borrower-i18n';

// Which language's catalog module was evaluated: the entry must never hold both (issue 19's budget).
const evaluated = vi.hoisted(() => [] as string[]);
vi.mock('./catalog-en', async (original) => {
  evaluated.push('en');
  return original();
});
vi.mock('./catalog-id', async (original) => {
  evaluated.push('id');
  return original();
});

describe('the borrower texts', () => {
  it('fetches the catalog of the market’s language only', async () => {
    expect(evaluated).toEqual([]);
    const i18n = await loadBorrowerI18n('id');
    expect(evaluated).toEqual(['id']);
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
