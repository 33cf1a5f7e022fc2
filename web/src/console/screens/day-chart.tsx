// A small bar or line chart of one figure over the dashboard's days, in plain SVG: no chart library, so the
// console's bundle grows by this file only. The figures themselves are in the table below the charts.

export interface DayChartProps {
  title: string;
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
}

const WIDTH = 360;
const HEIGHT = 120;
const PAD_LEFT = 4;
const PAD_TOP = 8;
const PAD_BOTTOM = 4;

export function DayChart({ title, values, kind, format, summary, reference, label }: DayChartProps) {
  const present = values.filter((v): v is number => v !== null);
  const max = Math.max(1, ...present, reference?.value ?? 0);
  const step = (WIDTH - PAD_LEFT) / Math.max(1, values.length);
  const y = (v: number) => PAD_TOP + (HEIGHT - PAD_TOP - PAD_BOTTOM) * (1 - v / max);
  const x = (i: number) => PAD_LEFT + step * i + step / 2;
  return (
    <figure className="chart">
      <figcaption>
        <span className="chart__title">{title}</span>
        <span className="chart__summary">{summary}</span>
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label} preserveAspectRatio="none">
        <line className="chart__axis" x1={PAD_LEFT} x2={WIDTH} y1={y(0)} y2={y(0)} />
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
                  <title>{format(v)}</title>
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
                  <circle key={i} className="chart__dot" cx={x(i)} cy={y(v)} r={2.5}>
                    <title>{format(v)}</title>
                  </circle>
                ),
              )}
            </>
          )}
      </svg>
      <div className="chart__scale" aria-hidden="true">
        <span>0</span>
        <span>{format(max)}</span>
      </div>
    </figure>
  );
}
