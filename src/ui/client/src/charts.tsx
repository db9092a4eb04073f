/** Small inline SVG charts: no library, text labels as SVG text nodes. */

/** One point of a line chart: its label (x) and value (y). */
export interface Point {
  label: string;
  value: number;
  /** Position on a time axis (ms); when every point has one, x is scaled by time, else by index. */
  at?: number;
}

const W = 640;
const H = 180;
const PAD = { left: 64, right: 12, top: 12, bottom: 28 };

/** A line (with dots) of `points` in order, the y axis from 0 to the largest value. */
export function LineChart({
  points,
  format,
  label,
}: {
  points: readonly Point[];
  format: (n: number) => string;
  label: string;
}) {
  if (points.length === 0) return <p class="muted">No data.</p>;
  const max = Math.max(...points.map((p) => p.value), 0) || 1;
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const times = points.map((p) => p.at);
  const t0 = times[0];
  const t1 = times.at(-1);
  const timed = times.every((t) => t !== undefined) && t0 !== undefined && t1 !== undefined && t1 > t0;
  const x = (i: number) => {
    if (points.length === 1) return PAD.left + innerW / 2;
    if (timed) return PAD.left + (((times[i] ?? t0) - t0) / (t1 - t0)) * innerW;
    return PAD.left + (i * innerW) / (points.length - 1);
  };
  const y = (v: number) => PAD.top + innerH - (v / max) * innerH;
  const path = points
    .map((p, i) => `${i === 0 ? "M" : "L"}${x(i).toFixed(1)},${y(p.value).toFixed(1)}`)
    .join(" ");
  const first = points[0];
  const last = points.at(-1);
  return (
    <svg class="chart line-chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label}>
      <line class="axis" x1={PAD.left} y1={PAD.top + innerH} x2={W - PAD.right} y2={PAD.top + innerH} />
      <line class="axis" x1={PAD.left} y1={PAD.top} x2={PAD.left} y2={PAD.top + innerH} />
      <text class="tick" x={PAD.left - 6} y={PAD.top + 4} text-anchor="end">
        {format(max)}
      </text>
      <text class="tick" x={PAD.left - 6} y={PAD.top + innerH} text-anchor="end">
        0
      </text>
      <path class="series" d={path} fill="none" />
      {points.map((p, i) => (
        <circle key={i} class="dot" cx={x(i)} cy={y(p.value)} r={3}>
          <title>{`${p.label}: ${format(p.value)}`}</title>
        </circle>
      ))}
      {first ? (
        <text class="tick" x={x(0)} y={H - 8} text-anchor={points.length === 1 ? "middle" : "start"}>
          {first.label}
        </text>
      ) : null}
      {last && points.length > 1 ? (
        <text class="tick" x={x(points.length - 1)} y={H - 8} text-anchor="end">
          {last.label}
        </text>
      ) : null}
    </svg>
  );
}

/** Horizontal bars, one per item, scaled to the largest value, with the label and value as text. */
export function BarChart({
  items,
  format,
  label,
}: {
  items: readonly Point[];
  format: (n: number) => string;
  label: string;
}) {
  if (items.length === 0) return <p class="muted">No data.</p>;
  const max = Math.max(...items.map((p) => p.value), 0) || 1;
  const row = 22;
  const labelW = 200;
  const valueW = 90;
  const barW = W - labelW - valueW;
  return (
    <svg class="chart bar-chart" viewBox={`0 0 ${W} ${items.length * row + 4}`} role="img" aria-label={label}>
      {items.map((item, i) => (
        <g key={i} class="bar-row">
          <text class="bar-label" x={labelW - 8} y={i * row + 15} text-anchor="end">
            {item.label.length > 28 ? `${item.label.slice(0, 27)}…` : item.label}
          </text>
          <rect
            class="bar"
            x={labelW}
            y={i * row + 4}
            width={Math.max(1, (item.value / max) * barW)}
            height={row - 8}
          />
          <text class="bar-value" x={W - valueW + 6} y={i * row + 15}>
            {format(item.value)}
          </text>
        </g>
      ))}
    </svg>
  );
}
