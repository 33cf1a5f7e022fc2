import type { InputRef } from 'antd-mobile';
import { forwardRef, useMemo } from 'react';
import type { Market } from '@/shared/market/market';
import { GroupedDigitsInput, type GroupedDigitsInputProps } from './grouped-digits-input';
import { minorFromMajor } from '@/shared/money/major-units';

/**
 * Whole rupees or rupiah as typed (`"12000"`) in minor units (`1200000`), with the money keyboard's integer
 * arithmetic (PRODUCT.md §3: no floating point). Empty or non-digit input, or too many digits, gives null.
 */
export function toMinorUnits(wholeDigits: string): number | null {
  return /^\d+$/.test(wholeDigits) ? minorFromMajor(wholeDigits) : null;
}

/** Minor units as whole digits for the field (`1200000` → `"12000"`); any paise or sen are dropped. */
export function fromMinorUnits(minor: number): string {
  if (!Number.isSafeInteger(minor) || minor < 0) return '';
  return (BigInt(minor) / 100n).toString();
}

/** The market's currency symbol: `₹`, `Rp`. */
export function currencySymbol(market: Market): string {
  const parts = new Intl.NumberFormat(market.locale, { style: 'currency', currency: market.currency }).formatToParts(0);
  return parts.find((part) => part.type === 'currency')?.value ?? market.currency;
}

export type MoneyInputProps = Omit<GroupedDigitsInputProps, 'group' | 'normalize' | 'prefix' | 'maxDigits'> & {
  market: Market;
  /** Whole units at most; 10 digits is more than any income an instant loan asks about. */
  maxDigits?: number;
};

/**
 * An amount in whole rupees or rupiah: the currency symbol before it, digits only, grouped the market's way
 * as it is typed (`12,00,000`, `1.200.000`); the value is the plain digits (see `toMinorUnits`).
 */
export const MoneyInput = forwardRef<InputRef, MoneyInputProps>(function MoneyInput({ market, maxDigits = 10, ...props }, ref) {
  const grouping = useMemo(() => new Intl.NumberFormat(market.locale, { maximumFractionDigits: 0 }), [market.locale]);
  return (
    <GroupedDigitsInput
      ref={ref}
      {...props}
      maxDigits={maxDigits}
      prefix={
        <span className="field__prefix" aria-hidden="true">
          {currencySymbol(market)}
        </span>
      }
      group={(digits) => (digits ? grouping.format(BigInt(digits)) : '')}
      normalize={(digits) => digits.replace(/^0+(?=\d)/, '')}
    />
  );
});
