// A small bar or line chart of one figure over the dashboard's days, in plain SVG: no chart library, so the
// console's bundle grows by this file only. Dated axis ("28 Oct … 27 Nov"); a day's value reads on hover and, with
// the chart focused, by the arrow keys (announced politely); the figures are also in the tables below the charts.
import { useId, useState, type KeyboardEvent, type MouseEvent } from 'react';
import { CONSOLE_LOCALE } from '../format';

export interface DayChartProps {
  title: string;
  /** The days (`YYYY-MM-DD`), oldest first, one per value. */
  dates: readonly string[];
  /** One value per day, oldest first; null is a day without a value (no gap filled). */
  values: readonly (number | null)[];
  kind: 'bar' | 'line';
  /** How a value reads (axis and label). */
  format: (value: number) => string;
  /** The summary above the chart (a total, today's value). */
  summary: string;
  /** A horizontal reference (a promise, a limit), with its label. */
  reference?: { value: number; label: string };
  /** The chart's label for screen readers. */
  label: string;
  /** What a day without a value reads as. */
  none: string;
  /** The hint under the chart before a day is chosen. */
  hint: string;
}

const WIDTH = 360;
const HEIGHT = 120;
const PAD_LEFT = 4;
const PAD_TOP = 8;
const PAD_BOTTOM = 4;

const shortDay = new Intl.DateTimeFormat(CONSOLE_LOCALE, { day: 'numeric', month: 'short', timeZone: 'UTC' });

/** `YYYY-MM-DD` → `27 Nov`, never shifted by the time zone. */
export function shortDate(isoDate: string): string {
  const [y, m, d] = isoDate.split('-').map(Number);
  if (!y || !m || !d) return isoDate;
  return shortDay.format(new Date(Date.UTC(y, m - 1, d)));
}

export function DayChart({ title, dates, values, kind, format, summary, reference, label, none, hint }: DayChartProps) {
  const [active, setActive] = useState<number | null>(null);
  const readoutId = useId();
  const present = values.filter((v): v is number => v !== null);
  const max = Math.max(1, ...present, reference?.value ?? 0);
  const step = (WIDTH - PAD_LEFT) / Math.max(1, values.length);
  const y = (v: number) => PAD_TOP + (HEIGHT - PAD_TOP - PAD_BOTTOM) * (1 - v / max);
  const x = (i: number) => PAD_LEFT + step * i + step / 2;
  const last = values.length - 1;
  const reading = (i: number) => {
    const v = values[i];
    return `${shortDate(dates[i] ?? '')}: ${v === null || v === undefined ? none : format(v)}`;
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const from = active ?? last;
    const to: Record<string, number> = {
      ArrowLeft: Math.max(0, from - 1),
      ArrowRight: Math.min(last, from + 1),
      Home: 0,
      End: last,
    };
    const next = to[event.key];
    if (next === undefined || last < 0) return;
    event.preventDefault();
    setActive(next);
  };
  const onMouseMove = (event: MouseEvent<HTMLDivElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    if (box.width <= 0 || values.length === 0) return;
    const i = Math.floor(((event.clientX - box.left) / box.width) * values.length);
    setActive(Math.min(last, Math.max(0, i)));
  };
  const middle = Math.floor(last / 2);
  return (
    <figure className="chart">
      <figcaption>
        <span className="chart__title">{title}</span>
        <span className="chart__summary">{summary}</span>
      </figcaption>
      <div
        className="chart__plot"
        role="group"
        aria-label={title}
        tabIndex={0}
        aria-describedby={readoutId}
        onKeyDown={onKeyDown}
        onFocus={() => setActive((a) => a ?? last)}
        onBlur={() => setActive(null)}
        onMouseMove={onMouseMove}
        onMouseLeave={() => setActive(null)}
      >
        <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label} preserveAspectRatio="none">
          <line className="chart__axis" x1={PAD_LEFT} x2={WIDTH} y1={y(0)} y2={y(0)} />
          {active !== null && <rect className="chart__cursor" x={x(active) - step / 2} width={step} y={0} height={HEIGHT} />}
          {reference && (
            <g className="chart__reference">
              <line x1={PAD_LEFT} x2={WIDTH} y1={y(reference.value)} y2={y(reference.value)} />
              <text x={WIDTH - 2} y={y(reference.value) - 3} textAnchor="end">
                {reference.label}
              </text>
            </g>
          )}
          {kind === 'bar'
            ? values.map((v, i) =>
                v === null || v === 0 ? null : (
                  <rect key={i} className="chart__bar" x={x(i) - step * 0.35} width={step * 0.7} y={y(v)} height={y(0) - y(v)}>
                    <title>{reading(i)}</title>
                  </rect>
                ),
              )
            : (
              <>
                <polyline
                  className="chart__line"
                  points={values
                    .map((v, i) => (v === null ? null : `${x(i)},${y(v)}`))
                    .filter(Boolean)
                    .join(' ')}
                />
                {values.map((v, i) =>
                  v === null ? null : (
                    <circle key={i} className={i === active ? 'chart__dot chart__dot--active' : 'chart__dot'} cx={x(i)} cy={y(v)} r={i === active ? 4 : 2.5}>
                      <title>{reading(i)}</title>
                    </circle>
                  ),
                )}
              </>
            )}
        </svg>
      </div>
      <div className="chart__scale" aria-hidden="true">
        <span>0</span>
        {/* The top of the scale is a value only when there is one (never "₹0.01" for a month of zeros). */}
        <span>{present.some((v) => v > 0) || reference ? format(max) : ''}</span>
      </div>
      {dates.length > 0 && (
        <div className="chart__dates" aria-hidden="true">
          <span>{shortDate(dates[0]!)}</span>
          <span>{shortDate(dates[middle]!)}</span>
          <span>{shortDate(dates[last]!)}</span>
        </div>
      )}
      <p id={readoutId} className="chart__readout" aria-live="polite">
        {active === null ? hint : reading(active)}
      </p>
    </figure>
  );
}
