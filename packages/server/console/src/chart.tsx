/**
 * A bar chart as SVG, drawn by the page from the API's numbers (no charting library: a few
 * dozen lines, readable by screen readers). Each bar has a title with its label and value, and
 * the same numbers are in a table under the chart for keyboard and screen-reader users.
 */
export interface ChartPoint {
  label: string;
  value: number | null;
}

const W = 640;
const H = 180;
const PAD = { left: 44, right: 8, top: 10, bottom: 24 };

export function BarChart(props: { id: string; title: string; points: ChartPoint[]; format?: (v: number) => string }) {
  const format = props.format ?? ((v: number) => String(Math.round(v * 100) / 100));
  const values = props.points.map((p) => p.value ?? 0);
  const max = Math.max(1e-9, ...values);
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const step = innerW / Math.max(1, props.points.length);
  const barW = Math.min(48, Math.max(1, step * 0.8));
  const every = Math.max(1, Math.ceil(props.points.length / 8));
  return (
    <figure class="chart" id={props.id}>
      <figcaption id={`${props.id}-title`}>{props.title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${props.id}-title`} preserveAspectRatio="none">
        <line x1={PAD.left} y1={PAD.top + innerH} x2={W - PAD.right} y2={PAD.top + innerH} class="axis" />
        <text x={PAD.left - 6} y={PAD.top + 8} class="tick" text-anchor="end">{format(max)}</text>
        <text x={PAD.left - 6} y={PAD.top + innerH} class="tick" text-anchor="end">0</text>
        {props.points.map((p, i) => {
          const h = ((p.value ?? 0) / max) * innerH;
          const x = PAD.left + i * step + (step - barW) / 2;
          return (
            <g key={p.label}>
              <rect class="bar" x={x} y={PAD.top + innerH - h} width={barW} height={h} data-label={p.label} data-value={p.value ?? ''}>
                <title>{`${p.label}: ${p.value === null ? 'no data' : format(p.value)}`}</title>
              </rect>
              {i % every === 0 && (
                <text x={x + barW / 2} y={H - 6} class="tick" text-anchor="middle">{p.label}</text>
              )}
            </g>
          );
        })}
      </svg>
      <details>
        <summary>Data</summary>
        <table>
          <thead><tr><th scope="col">When</th><th scope="col">Value</th></tr></thead>
          <tbody>
            {props.points.map((p) => (
              <tr key={p.label}><td>{p.label}</td><td>{p.value === null ? '—' : format(p.value)}</td></tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
