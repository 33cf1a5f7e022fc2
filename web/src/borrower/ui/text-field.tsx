import { Input, type InputRef } from 'antd-mobile';
import { forwardRef, useEffect, type ComponentProps, type ReactNode } from 'react';

type InputProps = Omit<ComponentProps<typeof Input>, 'id' | 'value' | 'onChange'>;

/**
 * A labelled antd-mobile Input with its error under it. The kit's Input does not pass `aria-invalid` or
 * `aria-describedby` to the native input, so they are set on it here: a screen reader then reads the
 * error with the field.
 */
export const TextField = forwardRef<
  InputRef,
  InputProps & { id: string; label: string; value: string; onChange: (value: string) => void; error?: string; prefix?: ReactNode }
>(function TextField({ id, label, value, onChange, error, prefix, ...input }, ref) {
  const errorId = `${id}-error`;

  useEffect(() => {
    const native = document.getElementById(id);
    if (!native) return;
    if (error) {
      native.setAttribute('aria-invalid', 'true');
      native.setAttribute('aria-describedby', errorId);
    } else {
      native.removeAttribute('aria-invalid');
      native.removeAttribute('aria-describedby');
    }
  }, [error, errorId, id]);

  return (
    <div className={error ? 'field field--error' : 'field'}>
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      <div className="field__control">
        {prefix}
        <Input ref={ref} id={id} value={value} onChange={onChange} {...input} />
      </div>
      {error && (
        <p className="field__error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
});
