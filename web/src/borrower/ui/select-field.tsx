import type { ReactNode } from 'react';
import { FieldFrame } from './field-frame';

export interface SelectOption {
  code: string;
  label: string;
}

export interface SelectFieldProps {
  id: string;
  label: string;
  options: readonly SelectOption[];
  /** The chosen code, or `''` for none yet. */
  value: string;
  onChange: (code: string) => void;
  /** What the field says before a choice: "Choose". */
  placeholder: string;
  hint?: ReactNode;
  error?: string;
  disabled?: boolean;
}

/**
 * A picker for an enumeration or a list such as regions and cities. The phone's own picker (a native
 * `select`): on a cheap Android phone it opens the system's list, which scrolls long lists smoothly, reads
 * out in the person's language and weighs nothing; a value that is not among the options shows as none.
 */
export function SelectField({ id, label, options, value, onChange, placeholder, hint, error, disabled }: SelectFieldProps) {
  const known = options.some((option) => option.code === value);
  return (
    <FieldFrame id={id} label={label} hint={hint} error={error}>
      <select
        id={id}
        className={known ? 'select' : 'select select--empty'}
        value={known ? value : ''}
        disabled={disabled}
        onChange={(event) => onChange(event.target.value)}
      >
        <option value="" disabled>
          {placeholder}
        </option>
        {options.map((option) => (
          <option key={option.code} value={option.code}>
            {option.label}
          </option>
        ))}
      </select>
      <span className="select__arrow" aria-hidden="true">
        ▾
      </span>
    </FieldFrame>
  );
}
