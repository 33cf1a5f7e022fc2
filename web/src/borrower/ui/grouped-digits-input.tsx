import type { InputRef } from 'antd-mobile';
import { forwardRef, useImperativeHandle, useLayoutEffect, useRef, useState } from 'react';
import { onlyDigits } from './digits-input';
import { InputField, type InputFieldProps } from './input-field';
import { editMasked, isMasked } from './masked-value';

export type GroupedDigitsInputProps = Omit<InputFieldProps, 'sanitize' | 'type' | 'inputMode' | 'pattern' | 'maxLength'> & {
  /** Plain digits (or a masked saved value, shown as it came). */
  value: string;
  /** Called with plain digits. */
  onChange: (digits: string) => void;
  maxDigits: number;
  /** How the digits are shown, e.g. `1234 5678` or `12,00,000`; only non-digits may be added. */
  group: (digits: string) => string;
  /** Tidies the digits before they are kept (drop leading zeros, say). */
  normalize?: (digits: string) => string;
};

/** The index in `shown` just after its `count`-th digit. */
function indexAfterDigits(shown: string, count: number): number {
  if (count <= 0) return 0;
  let seen = 0;
  for (let i = 0; i < shown.length; i++) {
    if (/\d/.test(shown[i]!) && ++seen === count) return i + 1;
  }
  return shown.length;
}

/**
 * A digits-only field shown with separators while its value stays plain digits. The caret stays after the
 * digit it was after when the separators move, and deleting a separator deletes the digit before it.
 */
export const GroupedDigitsInput = forwardRef<InputRef, GroupedDigitsInputProps>(function GroupedDigitsInput(
  { value, onChange, maxDigits, group, normalize, id, ...props },
  ref,
) {
  const inner = useRef<InputRef>(null);
  useImperativeHandle(ref, () => inner.current!, []);
  // Digits before the caret after the last edit, to put the caret back once the grouping has moved.
  const caret = useRef<number | null>(null);
  const [, rerender] = useState(0);
  const shown = isMasked(value) ? value : group(value);

  useLayoutEffect(() => {
    const native = inner.current?.nativeElement;
    if (caret.current === null || !native || document.activeElement !== native) return;
    const at = indexAfterDigits(native.value, caret.current);
    caret.current = null;
    native.setSelectionRange(at, at);
  });

  const change = (raw: string) => {
    if (isMasked(value)) {
      onChange(onlyDigits(editMasked(value, raw), maxDigits));
      return;
    }
    const native = inner.current?.nativeElement;
    const at = native?.selectionStart ?? raw.length;
    let before = onlyDigits(raw.slice(0, at)).length;
    let digits = onlyDigits(raw);
    // Only a separator went: take the digit before it instead, or the key would do nothing.
    if (digits === value && raw.length < shown.length && before > 0) {
      digits = value.slice(0, before - 1) + value.slice(before);
      before -= 1;
    }
    digits = digits.slice(0, maxDigits);
    const kept = normalize ? normalize(digits) : digits;
    caret.current = Math.max(0, Math.min(before - (digits.length - kept.length), kept.length));
    onChange(kept);
    rerender((n) => n + 1);
  };

  return (
    <InputField
      ref={inner}
      id={id}
      {...props}
      value={shown}
      onChange={change}
      type="text"
      inputMode="numeric"
      autoComplete={props.autoComplete ?? 'off'}
    />
  );
});
