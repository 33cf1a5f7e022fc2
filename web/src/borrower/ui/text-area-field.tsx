import { TextArea } from 'antd-mobile';
import type { ComponentProps, ReactNode } from 'react';
import { FieldFrame } from './field-frame';

type KitTextAreaProps = Omit<ComponentProps<typeof TextArea>, 'id' | 'value' | 'onChange'>;

export type TextAreaFieldProps = KitTextAreaProps & {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  hint?: ReactNode;
  error?: string;
};

/**
 * Longer text (an address) in a `FieldFrame`: antd-mobile's TextArea, two lines to start with and growing to
 * four as it fills, so a whole address stays in view on a narrow screen.
 */
export function TextAreaField({ id, label, value, onChange, hint, error, ...textArea }: TextAreaFieldProps) {
  return (
    <FieldFrame id={id} label={label} hint={hint} error={error}>
      <TextArea id={id} value={value} onChange={onChange} rows={2} autoSize={{ minRows: 2, maxRows: 4 }} {...textArea} />
    </FieldFrame>
  );
}
