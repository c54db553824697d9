/** DORA metrics over time per project or group, with GitLab's interval switch. */
import { useState } from 'preact/hooks';
import { BarChart } from '../chart.js';
import { Show, useClient, useLoad } from './shared.js';

const METRICS = [
  ['deployment_frequency', 'Deployment frequency (deployments)', (v: number) => String(v)],
  ['lead_time_for_changes', 'Lead time for changes', (v: number) => `${(v / 3600).toFixed(1)} h`],
  ['time_to_restore_service', 'Time to restore service', (v: number) => `${(v / 3600).toFixed(1)} h`],
  ['change_failure_rate', 'Change failure rate', (v: number) => `${Math.round(v * 100)} %`],
] as const;

export function Dora(props: { scope: { project: string } | { group: string } }) {
  const client = useClient();
  const [interval, setInterval] = useState<'daily' | 'monthly' | 'all'>('daily');
  const key = 'project' in props.scope ? `p${props.scope.project}` : `g${props.scope.group}`;
  const metrics = useLoad(
    () =>
      Promise.all(
        METRICS.map(([metric]) =>
          'project' in props.scope ? client.doraMetrics.project(props.scope.project, metric, { interval }) : client.doraMetrics.group(props.scope.group, metric, { interval }),
        ),
      ),
    [key, interval],
  );
  return (
    <section aria-labelledby="dora-h" class="dora">
      <h2 id="dora-h">DORA metrics</h2>
      <fieldset class="switch">
        <legend>Interval</legend>
        {(['daily', 'monthly', 'all'] as const).map((i) => (
          <label key={i}><input type="radio" name="interval" checked={interval === i} onChange={() => setInterval(i)} /> {i}</label>
        ))}
      </fieldset>
      <Show loaded={metrics}>
        {(series) => (
          <div class="charts">
            {METRICS.map(([metric, title, format], i) => (
              <BarChart key={metric} id={`dora-${metric}`} title={title} format={format} points={series[i]!.map((pt) => ({ label: pt.date ?? 'all', value: pt.value }))} />
            ))}
          </div>
        )}
      </Show>
    </section>
  );
}
