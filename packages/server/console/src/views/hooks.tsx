/**
 * Webhooks of a project or group and their recent deliveries: status, duration, trigger, the
 * payload on demand, and "resend" (the API's `…/events/:id/resend`). Hooks are for Maintainers:
 * anyone else sees the API's refusal.
 */
import type { Page } from '@forgelet/client';
import { useState } from 'preact/hooks';
import { PER_PAGE, PagedList, problem, useClient, usePaged, when } from './shared.js';

type Scope = { project: string } | { group: string };
/** What project and group hooks share (their `*_events` flags included). */
type HookRow = { id: number; url: string; alert_status: string } & Record<string, unknown>;

export function Hooks(props: { scope: Scope }) {
  const client = useClient();
  const isProject = 'project' in props.scope;
  const id = 'project' in props.scope ? props.scope.project : props.scope.group;
  const resource = isProject ? client.projectHooks : client.groupHooks;
  const hooks = usePaged((page) => resource.all(id, { per_page: PER_PAGE }).page(page) as Promise<Page<unknown>> as Promise<Page<HookRow>>, [isProject, id]);
  const [open, setOpen] = useState<number | null>(null);
  return (
    <section aria-labelledby="hooks-h">
      <h2 id="hooks-h">{isProject ? 'Webhooks' : 'Group webhooks'}</h2>
      <PagedList paged={hooks} label="Webhooks" empty="No webhooks.">
        {(items) => (
          <table>
            <thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">State</th><th scope="col"><span class="sr-only">Deliveries</span></th></tr></thead>
            <tbody>
              {items.map((h) => (
                <tr key={h.id}>
                  <td><code>{h.url}</code></td>
                  <td>{Object.entries(h).filter(([k, v]) => k.endsWith('_events') && v === true).map(([k]) => k.replace(/_events$/, '')).join(', ')}</td>
                  <td>{h.alert_status ?? '—'}</td>
                  <td>
                    <button type="button" aria-expanded={open === h.id} onClick={() => setOpen(open === h.id ? null : h.id)}>
                      {open === h.id ? 'Hide' : 'Show'} deliveries<span class="sr-only"> of {h.url}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </PagedList>
      {open !== null && <Deliveries scope={props.scope} hookId={open} />}
    </section>
  );
}

function Deliveries(props: { scope: Scope; hookId: number }) {
  const client = useClient();
  const isProject = 'project' in props.scope;
  const id = 'project' in props.scope ? props.scope.project : props.scope.group;
  const resource = isProject ? client.projectHooks : client.groupHooks;
  const events = usePaged((page) => resource.events(id, props.hookId, { per_page: PER_PAGE }).page(page), [isProject, id, props.hookId]);
  const [said, setSaid] = useState('');
  const [shown, setShown] = useState<Set<number>>(new Set());
  const resend = (logId: number) =>
    resource.resend(id, props.hookId, logId).then(
      (r) => {
        setSaid(`Delivery ${logId} sent again: ${r.response_status}.`);
        events.reload();
      },
      (e: Error) => setSaid(`Could not resend delivery ${logId}: ${problem(e)}`),
    );
  return (
    <section aria-labelledby="deliveries-h">
      <h3 id="deliveries-h">Recent deliveries of hook {props.hookId}</h3>
      <p role="status" class="notice">{said}</p>
      <PagedList paged={events} label="Deliveries" empty="No deliveries yet.">
        {(items) => (
          <table class="deliveries">
            <thead><tr><th scope="col">When</th><th scope="col">Trigger</th><th scope="col">Status</th><th scope="col">Duration</th><th scope="col">Payload</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {items.map((ev) => (
                <tr key={ev.id}>
                  <td>{when(ev.created_at)}</td>
                  <td>{ev.trigger}</td>
                  <td><span class={`status ${/^2\d\d$/.test(ev.response_status) ? 'status-success' : 'status-failed'}`}>{ev.response_status}</span></td>
                  <td>{ev.execution_duration.toFixed(2)} s</td>
                  <td>
                    <button type="button" aria-expanded={shown.has(ev.id)} onClick={() => setShown((s) => { const n = new Set(s); if (n.has(ev.id)) n.delete(ev.id); else n.add(ev.id); return n; })}>
                      {shown.has(ev.id) ? 'Hide' : 'Show'} payload<span class="sr-only"> of delivery {ev.id}</span>
                    </button>
                    {shown.has(ev.id) && <pre class="payload" tabIndex={0} aria-label={`Payload of delivery ${ev.id}`}>{JSON.stringify(ev.request_data, null, 2)}</pre>}
                  </td>
                  <td><button type="button" onClick={() => void resend(ev.id)}>Resend<span class="sr-only"> delivery {ev.id}</span></button></td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </PagedList>
    </section>
  );
}
