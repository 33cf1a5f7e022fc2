import { Input, type InputRef } from 'antd-mobile';
import { forwardRef, type ComponentProps, type ReactNode } from 'react';
import { FieldFrame } from './field-frame';
import { editMasked, isMasked } from './masked-value';

type KitInputProps = Omit<ComponentProps<typeof Input>, 'id' | 'value' | 'onChange' | 'prefix'>;

export type InputFieldProps = KitInputProps & {
  id: string;
  label: string;
  /** What the field holds; a masked value from the server (`******234F`) is shown as it is. */
  value: string;
  onChange: (value: string) => void;
  /** Applied to every edit before `onChange`: keep digits, upper-case, cap the length… */
  sanitize?: (raw: string) => string;
  hint?: ReactNode;
  error?: string;
  /** Shown before the input, e.g. a currency symbol or a country code. */
  prefix?: ReactNode;
};

/**
 * An antd-mobile Input in a `FieldFrame`. When the value is masked, the first edit replaces it rather
 * than mixing typed characters with stars (see masked-value.ts).
 */
export const InputField = forwardRef<InputRef, InputFieldProps>(function InputField(
  { id, label, value, onChange, sanitize, hint, error, prefix, ...input },
  ref,
) {
  const change = (raw: string) => {
    const edited = editMasked(value, raw);
    onChange(sanitize && !isMasked(edited) ? sanitize(edited) : edited);
  };
  return (
    <FieldFrame id={id} label={label} hint={hint} error={error}>
      {prefix}
      <Input ref={ref} id={id} value={value} onChange={change} {...input} />
    </FieldFrame>
  );
});
