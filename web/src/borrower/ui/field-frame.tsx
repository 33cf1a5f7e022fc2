import { useEffect, type ReactNode } from 'react';
import './form-controls.css';

export interface FieldFrameProps {
  /** The id of the control inside: its label points at it, and its error and hint are tied to it. */
  id: string;
  label: string;
  /** A line under the control that helps fill it in. */
  hint?: ReactNode;
  error?: string;
  children: ReactNode;
}

/**
 * A labelled control with its error under it, then an optional hint, styled like `TextField`. The kit's
 * inputs do not pass ARIA attributes to their native input, so `aria-invalid` and `aria-describedby` are
 * set on the element with `id` here: a screen reader reads the error and the hint with the field.
 */
export function FieldFrame({ id, label, hint, error, children }: FieldFrameProps) {
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [error ? errorId : null, hint ? hintId : null].filter(Boolean).join(' ');

  useEffect(() => {
    const native = document.getElementById(id);
    if (!native) return;
    if (error) native.setAttribute('aria-invalid', 'true');
    else native.removeAttribute('aria-invalid');
    if (describedBy) native.setAttribute('aria-describedby', describedBy);
    else native.removeAttribute('aria-describedby');
  }, [describedBy, error, id]);

  return (
    <div className={error ? 'field field--error' : 'field'}>
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      <div className="field__control">{children}</div>
      {error && (
        <p className="field__error" id={errorId}>
          {error}
        </p>
      )}
      {hint && (
        <p className="field__hint" id={hintId}>
          {hint}
        </p>
      )}
    </div>
  );
}
