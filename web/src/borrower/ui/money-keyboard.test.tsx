import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { I18nextProvider } from 'react-i18next';
import { describe, expect, it, vi } from 'vitest';
import { MARKETS } from '@/shared/market/market';
import { borrowerI18n } from '@/test/borrower-i18n';
import { MoneyKeyboard } from './money-keyboard';
import { decimalSeparator, formatTypedMoney, pressMoneyKey, type MoneyKey } from './money-text';

const typeKeys = (keys: MoneyKey[], start = '') => keys.reduce((text, key) => pressMoneyKey(text, key), start);
const plain = (text: string) => text.replace(/\s/g, ' ');

describe('typing money', () => {
  it.each<[MoneyKey[], string]>([
    [['2', '5', '0', '0'], '2500'],
    [['0', '0', '7'], '7'],
    [['.', '5'], '0.5'],
    [['1', '.', '.', '2'], '1.2'],
    [['1', '.', '2', '5', '9'], '1.25'],
    [['1', '2', 'delete'], '1'],
    [['0', '.', 'delete', 'delete'], ''],
    [['delete'], ''],
  ])('keys %j give %j', (keys, text) => {
    expect(typeKeys(keys)).toBe(text);
  });

  it('caps the whole part at 12 digits and refuses the point when no fraction is allowed', () => {
    expect(typeKeys(Array<MoneyKey>(15).fill('9'))).toBe('999999999999');
    expect(pressMoneyKey('12', '.', { maxFractionDigits: 0 })).toBe('12');
  });

  it('shows what is typed as money of the market, with its grouping and decimal separator', () => {
    expect(plain(formatTypedMoney('250000', MARKETS.in))).toBe('₹2,50,000');
    expect(plain(formatTypedMoney('2500.', MARKETS.in))).toBe('₹2,500.');
    expect(plain(formatTypedMoney('2500.5', MARKETS.in))).toBe('₹2,500.5');
    expect(plain(formatTypedMoney('1000000', MARKETS.id))).toBe('Rp 1.000.000');
    expect(plain(formatTypedMoney('1000000.25', MARKETS.id))).toBe('Rp 1.000.000,25');
    expect(decimalSeparator(MARKETS.in)).toBe('.');
    expect(decimalSeparator(MARKETS.id)).toBe(',');
  });
});

function Harness({ onConfirm, onHide, language = 'en' as const }: { onConfirm: (text: string) => void; onHide: () => void; language?: 'en' | 'id' }) {
  const [text, setText] = useState('');
  return (
    <I18nextProvider i18n={borrowerI18n(language)}>
      <output data-testid="typed">{text}</output>
      <MoneyKeyboard
        value={text}
        onChange={setText}
        onConfirm={() => onConfirm(text)}
        onHide={onHide}
        decimalLabel={language === 'en' ? '.' : ','}
        confirmDisabled={text === ''}
      />
    </I18nextProvider>
  );
}

describe('money keyboard', () => {
  it('has digits, a decimal point, delete, confirm and hide, each a named button', async () => {
    const onConfirm = vi.fn();
    const onHide = vi.fn();
    const user = userEvent.setup();
    render(<Harness onConfirm={onConfirm} onHide={onHide} />);
    const keyboard = screen.getByRole('group', { name: 'Amount keyboard' });
    expect(keyboard).toBeInTheDocument();
    for (const digit of '0123456789') expect(screen.getByRole('button', { name: digit })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'OK' })).toBeDisabled();

    for (const name of ['1', '2', '0', '0', 'Decimal point', '5', '7', '9', 'Delete']) await user.click(screen.getByRole('button', { name }));
    expect(screen.getByTestId('typed')).toHaveTextContent(/^1200\.5$/);

    await user.click(screen.getByRole('button', { name: 'OK' }));
    expect(onConfirm).toHaveBeenCalledWith('1200.5');
    await user.click(screen.getByRole('button', { name: 'Hide keyboard' }));
    expect(onHide).toHaveBeenCalledTimes(1);
  });

  it('takes a hardware keyboard too: digits, a comma as the point, Backspace, Enter and Escape', async () => {
    const onConfirm = vi.fn();
    const onHide = vi.fn();
    const user = userEvent.setup();
    render(<Harness onConfirm={onConfirm} onHide={onHide} language="id" />);
    expect(screen.getByRole('group', { name: 'Papan angka jumlah' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Koma desimal' })).toHaveTextContent(',');

    await user.keyboard('{Enter}');
    expect(onConfirm).not.toHaveBeenCalled();
    await user.keyboard('15,75x{Backspace}');
    expect(screen.getByTestId('typed')).toHaveTextContent(/^15\.7$/);
    await user.keyboard('{Enter}');
    expect(onConfirm).toHaveBeenCalledWith('15.7');
    await user.keyboard('{Escape}');
    expect(onHide).toHaveBeenCalledTimes(1);
  });
});
