import type { InputRef } from 'antd-mobile';
import { forwardRef } from 'react';
import { InputField, type InputFieldProps } from './input-field';

/** Keeps the digits of `raw`, at most `maxLength` of them. */
export function onlyDigits(raw: string, maxLength?: number): string {
  const digits = raw.replace(/\D/g, '');
  return maxLength === undefined ? digits : digits.slice(0, maxLength);
}

export type DigitsInputProps = Omit<InputFieldProps, 'sanitize' | 'type' | 'inputMode' | 'pattern' | 'maxLength'> & {
  /** The most digits the field takes. */
  maxLength?: number;
};

/**
 * A field that keeps digits only (SPEC.md §5's number input): pasted spaces, dashes or letters are dropped
 * and the numeric keyboard opens. A masked saved value (`************3456`) shows until it is edited.
 */
export const DigitsInput = forwardRef<InputRef, DigitsInputProps>(function DigitsInput({ maxLength, ...props }, ref) {
  return (
    <InputField
      ref={ref}
      {...props}
      type="text"
      inputMode="numeric"
      pattern="[0-9]*"
      autoComplete={props.autoComplete ?? 'off'}
      sanitize={(raw) => onlyDigits(raw, maxLength)}
    />
  );
});
