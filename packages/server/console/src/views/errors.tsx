/** Error tracking: the errors of a project, one error with its frequency, stack trace and events; resolve/ignore. */
import { useState } from 'preact/hooks';
import { BarChart } from '../chart.js';
import { Link } from '../router.js';
import { PER_PAGE, PagedList, Show, Status, problem, projectPath, useClient, useLoad, usePaged, when } from './shared.js';

export function Errors(props: { id: string }) {
  const client = useClient();
  const [status, setStatus] = useState<'unresolved' | 'resolved' | 'ignored'>('unresolved');
  const errors = usePaged((page) => client.errorTrackingErrors.all(props.id, { status, per_page: PER_PAGE }).page(page), [props.id, status]);
  return (
    <section aria-label="Errors">
      <label for="error-status">Status </label>
      <select id="error-status" value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value as typeof status)}>
        <option value="unresolved">Unresolved</option>
        <option value="resolved">Resolved</option>
        <option value="ignored">Ignored</option>
      </select>
      <PagedList paged={errors} label="Errors" empty={`No ${status} errors.`}>
        {(items) => (
          <table>
            <thead><tr><th scope="col">Error</th><th scope="col">Events</th><th scope="col">Users</th><th scope="col">Last seen</th></tr></thead>
            <tbody>
              {items.map((e) => (
                <tr key={e.id}>
                  <td><Link to={`${projectPath(props.id)}/errors/${e.id}`}>{e.title}</Link> <span class="muted">{e.culprit}</span></td>
                  <td>{e.count}</td>
                  <td>{e.user_count}</td>
                  <td>{when(e.last_seen)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </PagedList>
    </section>
  );
}

export function ErrorDetail(props: { id: string; errorId: number }) {
  const client = useClient();
  const error = useLoad(() => client.errorTrackingErrors.show(props.id, props.errorId), [props.id, props.errorId]);
  const events = usePaged((page) => client.errorTrackingErrors.events(props.id, props.errorId, { per_page: PER_PAGE }).page(page), [props.id, props.errorId]);
  const [range, setRange] = useState<'24h' | '30d'>('24h');
  // The API counts the events: per hour over 24 hours, per day over 30 days.
  const frequency = useLoad(() => client.errorTrackingErrors.frequency(props.id, props.errorId, { period: range }), [props.id, props.errorId, range, error.data]);
  const [said, setSaid] = useState('');
  const setStatus = (status: 'resolved' | 'ignored' | 'unresolved') =>
    client.errorTrackingErrors.setStatus(props.id, props.errorId, status).then(
      () => {
        setSaid(`Marked ${status}.`);
        error.reload();
      },
      (e: Error) => setSaid(problem(e)),
    );
  return (
    <Show loaded={error}>
      {(e) => (
        <article>
          <h2>{e.title} <Status status={e.status} /></h2>
          <p class="muted">{e.count} events · {e.user_count} users · first seen {when(e.first_seen)} · last seen {when(e.last_seen)}</p>
          <p role="status" class="notice">{said}</p>
          <div class="actions">
            {e.status !== 'resolved' && <button type="button" onClick={() => void setStatus('resolved')}>Resolve</button>}
            {e.status !== 'ignored' && <button type="button" onClick={() => void setStatus('ignored')}>Ignore</button>}
            {e.status !== 'unresolved' && <button type="button" onClick={() => void setStatus('unresolved')}>Unresolve</button>}
          </div>
          <fieldset class="switch">
            <legend>Frequency over</legend>
            <label><input type="radio" name="range" checked={range === '24h'} onChange={() => setRange('24h')} /> 24 hours</label>
            <label><input type="radio" name="range" checked={range === '30d'} onChange={() => setRange('30d')} /> 30 days</label>
          </fieldset>
          <Show loaded={frequency}>
            {(f) => (
              <BarChart
                id="error-frequency"
                title={`Events per ${f.period === '24h' ? 'hour, last 24 hours' : 'day, last 30 days'}`}
                points={f.frequency.map(([at, n]) => ({ label: f.period === '24h' ? at.slice(11, 16) : at.slice(5, 10), value: n }))}
              />
            )}
          </Show>
          <section aria-labelledby="stack-h">
            <h2 id="stack-h">Stack trace</h2>
            {e.stack_trace.length === 0 ? <p class="muted">None.</p> : (
              <ol class="stack">
                {e.stack_trace.map((fr, i) => (
                  <li key={i}>
                    <code>{fr.function ?? '?'}</code> in <code>{fr.filename ?? fr.abs_path ?? fr.module ?? '?'}{fr.lineno !== null && `:${fr.lineno}`}</code>
                    {fr.context.length > 0 && <pre>{fr.context.map(([n, line]) => `${n === fr.lineno ? '>' : ' '} ${n} ${line}`).join('\n')}</pre>}
                  </li>
                ))}
              </ol>
            )}
          </section>
          <section aria-labelledby="ev-h">
            <h2 id="ev-h">Events</h2>
            <PagedList paged={events} label="Events" empty="No events.">
              {(items) => (
                <table>
                  <thead><tr><th scope="col">When</th><th scope="col">Level</th><th scope="col">Environment</th><th scope="col">Release</th><th scope="col">Message</th></tr></thead>
                  <tbody>
                    {items.map((ev) => (
                      <tr key={ev.id}><td>{when(ev.timestamp)}</td><td>{ev.level}</td><td>{ev.environment}</td><td>{ev.release}</td><td>{ev.message}</td></tr>
                    ))}
                  </tbody>
                </table>
              )}
            </PagedList>
          </section>
        </article>
      )}
    </Show>
  );
}
