import { lazy, Suspense, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { FieldFrame } from './field-frame';

// The wheels bring their animation and gesture libraries (about 40 KB compressed): a chunk of their own,
// fetched as soon as a date field shows, so the other forms never download it and this one does not wait.
const loadDatePicker = () => import('./date-picker-sheet');
const DatePicker = lazy(loadDatePicker);

/** A calendar date (`YYYY-MM-DD`) as a local Date at midnight, the way antd-mobile's DatePicker counts days. */
export function parseIsoDate(iso: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(year, month - 1, day);
  return date.getFullYear() === year && date.getMonth() === month - 1 && date.getDate() === day ? date : null;
}

/** A local Date as the calendar date the API speaks: `YYYY-MM-DD`. */
export function toIsoDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

export interface DateOfBirthFieldProps {
  id: string;
  label: string;
  /** `YYYY-MM-DD`, or `''` before a choice. */
  value: string;
  onChange: (iso: string) => void;
  /** The earliest and latest dates the wheels offer (the age limits). */
  min: Date;
  max: Date;
  /** Where the wheels start when nothing is chosen yet; kept between `min` and `max`. */
  start?: Date;
  /** `en-IN` or `id-ID`: the chosen date and the month names. */
  locale: string;
  placeholder: string;
  confirmText: string;
  cancelText: string;
  hint?: ReactNode;
  error?: string;
}

/**
 * Date of birth with antd-mobile's DatePicker: a button shows the date in the market's words and opens
 * the wheels (day, month by name, year) in a bottom sheet. The kit's own texts follow the market through
 * the app's ConfigProvider; the sheet's buttons get ours, which read better than the kit's Indonesian.
 */
export function DateOfBirthField({ id, label, value, onChange, min, max, start, locale, placeholder, confirmText, cancelText, hint, error }: DateOfBirthFieldProps) {
  const [open, setOpen] = useState(false);
  const [opened, setOpened] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    void loadDatePicker().catch(() => undefined);
  }, []);
  const chosen = parseIsoDate(value);
  const formats = useMemo(
    () => ({
      long: new Intl.DateTimeFormat(locale, { dateStyle: 'long' }),
      month: new Intl.DateTimeFormat(locale, { month: 'short' }),
    }),
    [locale],
  );
  const shown = chosen ? formats.long.format(chosen) : placeholder;
  const first = start ?? max;
  const wheelsAt = chosen ?? new Date(Math.min(Math.max(first.getTime(), min.getTime()), max.getTime()));

  return (
    <FieldFrame id={id} label={label} hint={hint} error={error}>
      <button
        ref={button}
        id={id}
        type="button"
        className={chosen ? 'picker-button' : 'picker-button picker-button--empty'}
        aria-label={`${label}: ${shown}`}
        aria-haspopup="dialog"
        onClick={() => {
          setOpen(true);
          setOpened(true);
        }}
      >
        {shown}
      </button>
      <span className="select__arrow" aria-hidden="true">
        ▾
      </span>
      {/* Mounted at the first tap, so the chunk it needs is fetched in the background before that. */}
      {opened && (
        <Suspense fallback={null}>
          <DatePicker
            visible={open}
            title={label}
            min={min}
            max={max}
            precision="day"
            value={wheelsAt}
            confirmText={confirmText}
            cancelText={cancelText}
            renderLabel={(type, data) => (type === 'month' ? formats.month.format(new Date(2000, data - 1, 1)) : String(data))}
            onConfirm={(date) => onChange(toIsoDate(date))}
            onClose={() => {
              setOpen(false);
              button.current?.focus();
            }}
            destroyOnClose
            // Inside the app's element, so the sheet takes the theme's colours (custom properties set there).
            getContainer={() => button.current?.closest<HTMLElement>('.app') ?? document.body}
          />
        </Suspense>
      )}
    </FieldFrame>
  );
}
