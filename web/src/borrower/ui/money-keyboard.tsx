import { useEffect, useRef, type PointerEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { DIGIT_KEYS, pressMoneyKey, type MoneyKey, type MoneyTextLimits } from './money-text';
import './money-keyboard.css';

export interface MoneyKeyboardProps {
  /** The text typed so far, e.g. "2500.5" (always with "." as its point; see money-text.ts). */
  value: string;
  onChange: (value: string) => void;
  onConfirm: () => void;
  onHide: () => void;
  /** The decimal key's face: the market's separator ("." or ","). */
  decimalLabel?: string;
  limits?: MoneyTextLimits;
  /** Disable confirming (nothing typed yet, say). */
  confirmDisabled?: boolean;
}

/**
 * The money keyboard of PRODUCT.md §1: digits, decimal point, delete, confirm and hide, fixed to the bottom
 * of the screen like a phone's own. Hand-made rather than antd-mobile's NumberKeyboard, which would bring
 * its popup and animation library and whose keys are not buttons a screen reader or a keyboard can use.
 * A hardware keyboard works too while it is open: digits, "." or ",", Backspace, Enter and Escape.
 */
export function MoneyKeyboard({ value, onChange, onConfirm, onHide, decimalLabel = '.', limits, confirmDisabled }: MoneyKeyboardProps) {
  const { t } = useTranslation();
  // The listener below reads the latest props without being added again on every key.
  const latest = useRef({ value, onChange, onConfirm, onHide, limits, confirmDisabled });
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    latest.current = { value, onChange, onConfirm, onHide, limits, confirmDisabled };
  });

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      const now = latest.current;
      let key: MoneyKey | null = null;
      if (/^\d$/.test(event.key)) key = event.key as MoneyKey;
      else if (event.key === '.' || event.key === ',') key = '.';
      else if (event.key === 'Backspace') key = 'delete';
      else if (event.key === 'Enter') {
        // Enter on one of the keys presses that key; anywhere else it confirms.
        if (event.target instanceof Node && root.current?.contains(event.target)) return;
        event.preventDefault();
        if (!now.confirmDisabled) now.onConfirm();
        return;
      } else if (event.key === 'Escape') {
        event.preventDefault();
        now.onHide();
        return;
      }
      if (key === null) return;
      event.preventDefault();
      now.onChange(pressMoneyKey(now.value, key, now.limits));
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, []);

  const press = (key: MoneyKey) => onChange(pressMoneyKey(value, key, limits));
  // Keys keep the focus where it was (the amount), as a phone's keyboard does; clicks still count.
  const keepFocus = (event: PointerEvent) => event.preventDefault();

  return (
    <div ref={root} className="money-keyboard" role="group" aria-label={t('moneyKeyboard.label')}>
      <div className="money-keyboard__keys">
        {DIGIT_KEYS.slice(0, 9).map((digit) => (
          <button key={digit} type="button" className="money-keyboard__key" onPointerDown={keepFocus} onClick={() => press(digit)}>
            {digit}
          </button>
        ))}
        <button
          type="button"
          className="money-keyboard__key"
          aria-label={t('moneyKeyboard.decimal')}
          disabled={limits?.maxFractionDigits === 0}
          onPointerDown={keepFocus}
          onClick={() => press('.')}
        >
          {decimalLabel}
        </button>
        <button type="button" className="money-keyboard__key" onPointerDown={keepFocus} onClick={() => press('0')}>
          0
        </button>
        <button
          type="button"
          className="money-keyboard__key money-keyboard__key--fn"
          aria-label={t('moneyKeyboard.delete')}
          onPointerDown={keepFocus}
          onClick={() => press('delete')}
        >
          <span aria-hidden="true">⌫</span>
        </button>
      </div>
      <div className="money-keyboard__side">
        <button type="button" className="money-keyboard__key money-keyboard__key--fn" aria-label={t('moneyKeyboard.hide')} onPointerDown={keepFocus} onClick={onHide}>
          <span aria-hidden="true">⌄</span>
        </button>
        <button type="button" className="money-keyboard__key money-keyboard__confirm" disabled={confirmDisabled} onPointerDown={keepFocus} onClick={onConfirm}>
          {t('moneyKeyboard.confirm')}
        </button>
      </div>
    </div>
  );
}
