/**
 * The console's views. Every request goes through the client SDK (same API, same permissions
 * as a token of the signed-in user); an API refusal shows as the API's own status and message.
 */
import type { Forgelet } from '@forgelet/client';
import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { BarChart, type ChartPoint } from './chart.js';
import { BASE, Link } from './router.js';

export const ClientContext = createContext<Forgelet>(null as unknown as Forgelet);
const useClient = () => useContext(ClientContext);

interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  reload(): void;
}

/** Runs `load` when `keys` change; keeps the last answer while reloading. */
function useLoad<T>(load: () => Promise<T>, keys: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error }>({});
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (data) => live && setState({ data }),
      (error: Error) => live && setState({ error }),
    );
    return () => {
      live = false;
    };
  }, [...keys, tick]);
  return { data: state.data, error: state.error, reload: () => setTick((t) => t + 1) };
}

/** The API's status and message of an error (the client's ApiError carries them). */
function problem(error: Error): string {
  const e = error as Error & { status?: number; body?: { message?: unknown; error?: unknown } };
  const said = e.body?.message ?? e.body?.error;
  return e.status ? `${typeof said === 'string' ? said : `${e.status}`}` : error.message;
}

function Show<T>(props: { loaded: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (props.loaded.error) return <p class="error" role="alert">{problem(props.loaded.error)}</p>;
  if (props.loaded.data === undefined) return <p class="muted" aria-live="polite">Loading…</p>;
  return <>{props.children(props.loaded.data)}</>;
}

const when = (iso: string | null | undefined) => (iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 16) + ' UTC' : '—');
const p = (id: string | number) => `${BASE}/projects/${id}`;

function Status(props: { status: string }) {
  return <span class={`status status-${props.status}`}>{props.status}</span>;
}

// ---- groups and projects ----

export function Home() {
  const client = useClient();
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const groups = useLoad(() => client.groups.all({ search: query || undefined, per_page: 50 }).page(1), [query]);
  const projects = useLoad(() => client.projects.all({ search: query || undefined, per_page: 50, order_by: 'last_activity_at' }).page(1), [query]);
  return (
    <>
      <h1>Groups and projects</h1>
      <form
        role="search"
        class="search"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery(search.trim());
        }}
      >
        <label for="search">Search groups and projects</label>
        <input id="search" type="search" value={search} onInput={(e) => setSearch((e.target as HTMLInputElement).value)} />
        <button type="submit">Search</button>
      </form>
      <section aria-labelledby="groups-h">
        <h2 id="groups-h">Groups</h2>
        <Show loaded={groups}>
          {(page) =>
            page.items.length === 0 ? (
              <p class="muted">No groups.</p>
            ) : (
              <ul class="list">
                {page.items.map((g) => (
                  <li key={g.id}>
                    <Link to={`${BASE}/groups/${g.id}`}>{g.full_path}</Link> <span class="muted">{g.description}</span>
                  </li>
                ))}
              </ul>
            )
          }
        </Show>
      </section>
      <section aria-labelledby="projects-h">
        <h2 id="projects-h">Projects</h2>
        <Show loaded={projects}>
          {(page) =>
            page.items.length === 0 ? (
              <p class="muted">No projects.</p>
            ) : (
              <ul class="list">
                {page.items.map((pr) => (
                  <li key={pr.id}>
                    <Link to={p(pr.id)}>{pr.path_with_namespace}</Link> <span class="muted">{pr.description}</span>
                  </li>
                ))}
              </ul>
            )
          }
        </Show>
      </section>
    </>
  );
}

export function Group(props: { id: string }) {
  const client = useClient();
  const group = useLoad(() => client.groups.show(props.id), [props.id]);
  const projects = useLoad(() => client.groups.projects(props.id, { per_page: 50, include_subgroups: true }).page(1), [props.id]);
  return (
    <Show loaded={group}>
      {(g) => (
        <>
          <h1>{g.full_name}</h1>
          <section aria-labelledby="gp-h">
            <h2 id="gp-h">Projects</h2>
            <Show loaded={projects}>
              {(page) => (
                <ul class="list">
                  {page.items.map((pr) => (
                    <li key={pr.id}>
                      <Link to={p(pr.id)}>{pr.path_with_namespace}</Link>
                    </li>
                  ))}
                </ul>
              )}
            </Show>
          </section>
          <Dora scope={{ group: props.id }} />
        </>
      )}
    </Show>
  );
}

// ---- a project ----

const TABS = [
  ['issues', 'Issues'],
  ['merge_requests', 'Merge requests'],
  ['pipelines', 'Pipelines'],
  ['schedules', 'Schedules'],
  ['errors', 'Errors'],
  ['releases', 'Releases'],
  ['environments', 'Environments'],
  ['dora', 'DORA'],
] as const;

export function Project(props: { id: string; tab: string; children?: ComponentChildren }) {
  const client = useClient();
  const project = useLoad(() => client.projects.show(props.id), [props.id]);
  return (
    <Show loaded={project}>
      {(pr) => (
        <>
          <p class="crumbs">
            <Link to={BASE}>Projects</Link> / {pr.namespace.full_path}
          </p>
          <h1>{pr.name}</h1>
          <nav aria-label="Project" class="tabs">
            {TABS.map(([tab, label]) => (
              <Link key={tab} to={`${p(pr.id)}/${tab}`} aria-current={props.tab === tab ? 'page' : undefined}>
                {label}
              </Link>
            ))}
          </nav>
          {props.children ?? <ProjectTab id={String(pr.id)} tab={props.tab} />}
        </>
      )}
    </Show>
  );
}

function ProjectTab(props: { id: string; tab: string }) {
  switch (props.tab) {
    case 'merge_requests':
      return <MergeRequests id={props.id} />;
    case 'pipelines':
      return <Pipelines id={props.id} />;
    case 'schedules':
      return <Schedules id={props.id} />;
    case 'errors':
      return <Errors id={props.id} />;
    case 'releases':
      return <Releases id={props.id} />;
    case 'environments':
      return <Environments id={props.id} />;
    case 'dora':
      return <Dora scope={{ project: props.id }} />;
    default:
      return <Issues id={props.id} />;
  }
}

function Issues(props: { id: string }) {
  const client = useClient();
  const issues = useLoad(() => client.issues.all(props.id, { per_page: 50 }).page(1), [props.id]);
  return (
    <section aria-label="Issues">
      <Show loaded={issues}>
        {(page) =>
          page.items.length === 0 ? (
            <p class="muted">No issues.</p>
          ) : (
            <table>
              <thead><tr><th scope="col">Issue</th><th scope="col">State</th><th scope="col">Author</th><th scope="col">Updated</th></tr></thead>
              <tbody>
                {page.items.map((i) => (
                  <tr key={i.id}>
                    <td><Link to={`${p(props.id)}/issues/${i.iid}`}>#{i.iid} {i.title}</Link></td>
                    <td><Status status={i.state} /></td>
                    <td>{i.author?.username}</td>
                    <td>{when(i.updated_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
    </section>
  );
}

function MergeRequests(props: { id: string }) {
  const client = useClient();
  const mrs = useLoad(() => client.mergeRequests.allInProject(props.id, { per_page: 50 }).page(1), [props.id]);
  return (
    <section aria-label="Merge requests">
      <Show loaded={mrs}>
        {(page) =>
          page.items.length === 0 ? (
            <p class="muted">No merge requests.</p>
          ) : (
            <table>
              <thead><tr><th scope="col">Merge request</th><th scope="col">State</th><th scope="col">Branches</th><th scope="col">Updated</th></tr></thead>
              <tbody>
                {page.items.map((m) => (
                  <tr key={m.id}>
                    <td><Link to={`${p(props.id)}/merge_requests/${m.iid}`}>!{m.iid} {m.title}</Link></td>
                    <td><Status status={m.state} /></td>
                    <td>{m.source_branch} → {m.target_branch}</td>
                    <td>{when(m.updated_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
    </section>
  );
}

/** Notes, emoji and state events of an issue or merge request. */
function Discussion(props: { id: string; iid: number; kind: 'issues' | 'merge_requests' }) {
  const client = useClient();
  const isIssue = props.kind === 'issues';
  const notes = useLoad(() => (isIssue ? client.issueNotes : client.mergeRequestNotes).all(props.id, props.iid, { per_page: 100, sort: 'asc' }).page(1), [props.id, props.iid]);
  const emoji = useLoad(() => (isIssue ? client.issueAwardEmoji : client.mergeRequestAwardEmoji).all(props.id, props.iid, { per_page: 100 }).page(1), [props.id, props.iid]);
  const events = useLoad(() => (isIssue ? client.issueStateEvents : client.mergeRequestStateEvents).all(props.id, props.iid, { per_page: 100 }).page(1), [props.id, props.iid]);
  return (
    <>
      <section aria-labelledby="emoji-h">
        <h2 id="emoji-h">Emoji</h2>
        <Show loaded={emoji}>
          {(page) => (page.items.length === 0 ? <p class="muted">None.</p> : (
            <ul class="chips">{page.items.map((e) => <li key={e.id}>:{e.name}: <span class="muted">{e.user.username}</span></li>)}</ul>
          ))}
        </Show>
      </section>
      <section aria-labelledby="events-h">
        <h2 id="events-h">State events</h2>
        <Show loaded={events}>
          {(page) => (page.items.length === 0 ? <p class="muted">None.</p> : (
            <ul class="list">{page.items.map((e) => <li key={e.id}><Status status={e.state} /> by {e.user?.username ?? '—'} at {when(e.created_at)}</li>)}</ul>
          ))}
        </Show>
      </section>
      <section aria-labelledby="notes-h">
        <h2 id="notes-h">Notes</h2>
        <Show loaded={notes}>
          {(page) => (page.items.length === 0 ? <p class="muted">No notes.</p> : (
            <ol class="notes">
              {page.items.map((n) => (
                <li key={n.id} class={n.system ? 'system' : ''}>
                  <p class="meta">{n.author.username} · {when(n.created_at)}</p>
                  <p class="body">{n.body}</p>
                </li>
              ))}
            </ol>
          ))}
        </Show>
      </section>
    </>
  );
}

export function Issue(props: { id: string; iid: number }) {
  const client = useClient();
  const issue = useLoad(() => client.issues.show(props.id, props.iid), [props.id, props.iid]);
  return (
    <Show loaded={issue}>
      {(i) => (
        <article>
          <h2>#{i.iid} {i.title} <Status status={i.state} /></h2>
          <p class="muted">Opened by {i.author?.username} at {when(i.created_at)}</p>
          {i.description && <p class="body">{i.description}</p>}
          <Discussion id={props.id} iid={props.iid} kind="issues" />
        </article>
      )}
    </Show>
  );
}

export function MergeRequest(props: { id: string; iid: number }) {
  const client = useClient();
  const mr = useLoad(() => client.mergeRequests.show(props.id, props.iid), [props.id, props.iid]);
  const approvals = useLoad(() => client.mergeRequestApprovals.state(props.id, props.iid), [props.id, props.iid]);
  return (
    <Show loaded={mr}>
      {(m) => (
        <article>
          <h2>!{m.iid} {m.title} <Status status={m.state} /></h2>
          <p class="muted">{m.source_branch} → {m.target_branch}, by {m.author?.username}</p>
          {m.description && <p class="body">{m.description}</p>}
          <section aria-labelledby="approvals-h">
            <h2 id="approvals-h">Approvals</h2>
            <Show loaded={approvals}>
              {(a) => (
                <p>
                  {a.approvals_left === 0 ? 'Approved' : `${a.approvals_left} approval(s) left`}
                  {a.approved_by.length > 0 && ` · approved by ${a.approved_by.map((x) => x.user.username).join(', ')}`}
                </p>
              )}
            </Show>
          </section>
          <Discussion id={props.id} iid={props.iid} kind="merge_requests" />
        </article>
      )}
    </Show>
  );
}

// ---- CI ----

function Pipelines(props: { id: string }) {
  const client = useClient();
  const pipelines = useLoad(() => client.pipelines.all(props.id, { per_page: 30 }).page(1), [props.id]);
  // Durations need the pipeline itself (the list has none): the 30 newest, oldest first.
  const durations = useLoad(
    async () => {
      const page = await client.pipelines.all(props.id, { per_page: 30 }).page(1);
      const full = await Promise.all(page.items.map((pl) => client.pipelines.show(props.id, pl.id)));
      return full.reverse().map((pl): ChartPoint => ({ label: `#${pl.id}`, value: pl.duration ?? null }));
    },
    [props.id],
  );
  return (
    <section aria-label="Pipelines">
      <Show loaded={durations}>
        {(points) => (points.length > 0 ? <BarChart id="pipeline-durations" title="Pipeline durations (seconds)" points={points} format={(v) => `${Math.round(v)} s`} /> : null)}
      </Show>
      <Show loaded={pipelines}>
        {(page) =>
          page.items.length === 0 ? (
            <p class="muted">No pipelines.</p>
          ) : (
            <table>
              <thead><tr><th scope="col">Pipeline</th><th scope="col">Status</th><th scope="col">Ref</th><th scope="col">Source</th><th scope="col">Created</th></tr></thead>
              <tbody>
                {page.items.map((pl) => (
                  <tr key={pl.id}>
                    <td><Link to={`${p(props.id)}/pipelines/${pl.id}`}>#{pl.id}</Link></td>
                    <td><Status status={pl.status} /></td>
                    <td>{pl.ref}</td>
                    <td>{pl.source}</td>
                    <td>{when(pl.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
    </section>
  );
}

const LIVE = new Set(['created', 'pending', 'running', 'waiting_for_resource', 'preparing', 'scheduled']);

export function Pipeline(props: { id: string; pipelineId: number }) {
  const client = useClient();
  const pipeline = useLoad(() => client.pipelines.show(props.id, props.pipelineId), [props.id, props.pipelineId]);
  const jobs = useLoad(() => client.pipelines.jobs(props.id, props.pipelineId, { per_page: 100 }).page(1), [props.id, props.pipelineId]);
  // While it runs, the statuses are read again every 2 s.
  const live = pipeline.data && LIVE.has(pipeline.data.status);
  useEffect(() => {
    if (!live) return;
    const t = setInterval(() => {
      pipeline.reload();
      jobs.reload();
    }, 2000);
    return () => clearInterval(t);
  }, [live]);
  return (
    <Show loaded={pipeline}>
      {(pl) => (
        <article>
          <h2>Pipeline #{pl.id} <Status status={pl.status} /></h2>
          <p class="muted">{pl.ref} · {pl.sha.slice(0, 8)} · {pl.source} · created {when(pl.created_at)}{pl.duration !== null && ` · ${pl.duration} s`}</p>
          <Show loaded={jobs}>
            {(page) => {
              const stages: string[] = [];
              for (const j of [...page.items].sort((a, b) => a.id - b.id)) if (!stages.includes(j.stage)) stages.push(j.stage);
              return (
                <div class="stages">
                  {stages.map((stage) => (
                    <section key={stage} class="stage" aria-label={`Stage ${stage}`}>
                      <h3>{stage}</h3>
                      <ul class="list">
                        {page.items.filter((j) => j.stage === stage).map((j) => (
                          <li key={j.id}>
                            <Link to={`${p(props.id)}/jobs/${j.id}`}>{j.name}</Link> <Status status={j.status} />
                          </li>
                        ))}
                      </ul>
                    </section>
                  ))}
                </div>
              );
            }}
          </Show>
        </article>
      )}
    </Show>
  );
}

/** A job and its log, read again every second while the job runs (the log grows as the runner appends). */
export function Job(props: { id: string; jobId: number }) {
  const client = useClient();
  const [state, setState] = useState<{ job?: Awaited<ReturnType<Forgelet['jobs']['show']>>; log: string; error?: Error }>({ log: '' });
  const pre = useRef<HTMLPreElement>(null);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const [job, log] = await Promise.all([client.jobs.show(props.id, props.jobId), client.jobs.trace(props.id, props.jobId)]);
        if (!live) return;
        setState({ job, log });
        if (LIVE.has(job.status)) timer = setTimeout(poll, 1000);
      } catch (error) {
        if (live) setState((s) => ({ ...s, error: error as Error }));
      }
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [props.id, props.jobId]);
  useEffect(() => {
    if (pre.current) pre.current.scrollTop = pre.current.scrollHeight;
  }, [state.log]);
  if (state.error) return <p class="error" role="alert">{problem(state.error)}</p>;
  if (!state.job) return <p class="muted">Loading…</p>;
  const j = state.job;
  return (
    <article>
      <h2>Job {j.name} <Status status={j.status} /></h2>
      <p class="muted">
        Stage {j.stage} · <Link to={`${p(props.id)}/pipelines/${j.pipeline.id}`}>pipeline #{j.pipeline.id}</Link>
        {LIVE.has(j.status) && ' · log streaming'}
      </p>
      <pre class="log" id="job-log" ref={pre} tabIndex={0} aria-label="Job log" aria-live="polite">{state.log}</pre>
    </article>
  );
}

function Schedules(props: { id: string }) {
  const client = useClient();
  const schedules = useLoad(() => client.pipelineSchedules.all(props.id, { per_page: 100 }).page(1), [props.id]);
  const [said, setSaid] = useState<string>('');
  return (
    <section aria-label="Pipeline schedules">
      <p role="status" class="notice">{said}</p>
      <Show loaded={schedules}>
        {(page) =>
          page.items.length === 0 ? (
            <p class="muted">No schedules.</p>
          ) : (
            <table>
              <thead><tr><th scope="col">Schedule</th><th scope="col">Cron</th><th scope="col">Ref</th><th scope="col">Next run</th><th scope="col">Active</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
              <tbody>
                {page.items.map((s) => (
                  <tr key={s.id}>
                    <td>{s.description}</td>
                    <td><code>{s.cron}</code> <span class="muted">{s.cron_timezone}</span></td>
                    <td>{s.ref}</td>
                    <td>{when(s.next_run_at)}</td>
                    <td>{s.active ? 'yes' : 'no'}</td>
                    <td>
                      <button
                        type="button"
                        onClick={() =>
                          client.pipelineSchedules.run(props.id, s.id).then(
                            () => setSaid(`Schedule “${s.description}” queued to run now.`),
                            (e: Error) => setSaid(`Could not run “${s.description}”: ${problem(e)}`),
                          )
                        }
                      >
                        Run now<span class="sr-only"> {s.description}</span>
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
    </section>
  );
}

// ---- error tracking ----

function Errors(props: { id: string }) {
  const client = useClient();
  const [status, setStatus] = useState<'unresolved' | 'resolved' | 'ignored'>('unresolved');
  const errors = useLoad(() => client.errorTrackingErrors.all(props.id, { status, per_page: 50 } as never).page(1), [props.id, status]);
  return (
    <section aria-label="Errors">
      <label for="error-status">Status </label>
      <select id="error-status" value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value as typeof status)}>
        <option value="unresolved">Unresolved</option>
        <option value="resolved">Resolved</option>
        <option value="ignored">Ignored</option>
      </select>
      <Show loaded={errors}>
        {(page) =>
          page.items.length === 0 ? (
            <p class="muted">No {status} errors.</p>
          ) : (
            <table>
              <thead><tr><th scope="col">Error</th><th scope="col">Events</th><th scope="col">Users</th><th scope="col">Last seen</th></tr></thead>
              <tbody>
                {page.items.map((e) => (
                  <tr key={e.id}>
                    <td><Link to={`${p(props.id)}/errors/${e.id}`}>{e.title}</Link> <span class="muted">{e.culprit}</span></td>
                    <td>{e.count}</td>
                    <td>{e.user_count}</td>
                    <td>{when(e.last_seen)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
    </section>
  );
}

const DAY_MS = 86_400_000;

export function ErrorDetail(props: { id: string; errorId: number }) {
  const client = useClient();
  const error = useLoad(() => client.errorTrackingErrors.show(props.id, props.errorId), [props.id, props.errorId]);
  const events = useLoad(() => client.errorTrackingErrors.events(props.id, props.errorId, { per_page: 100 }).page(1), [props.id, props.errorId]);
  const [range, setRange] = useState<'24h' | '30d'>('24h');
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
      {(e) => {
        // 24 h: the API's hourly frequency (ending with the server's current hour); 30 d: events per day up to that hour.
        const end = e.frequency.length ? Date.parse(e.frequency[e.frequency.length - 1]![0]) + 3600_000 : Date.now();
        let points: ChartPoint[];
        if (range === '24h') points = e.frequency.map(([at, n]) => ({ label: at.slice(11, 16), value: n }));
        else {
          const lastDay = Math.floor((end - 1) / DAY_MS) * DAY_MS;
          const days = Array.from({ length: 30 }, (_, i) => lastDay - (29 - i) * DAY_MS);
          const counts = new Map(days.map((d) => [d, 0]));
          for (const ev of events.data?.items ?? []) {
            const d = Math.floor(Date.parse(ev.timestamp) / DAY_MS) * DAY_MS;
            if (counts.has(d)) counts.set(d, counts.get(d)! + 1);
          }
          points = days.map((d) => ({ label: new Date(d).toISOString().slice(5, 10), value: counts.get(d)! }));
        }
        return (
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
            <BarChart id="error-frequency" title={`Events per ${range === '24h' ? 'hour, last 24 hours' : 'day, last 30 days'}`} points={points} />
            <section aria-labelledby="stack-h">
              <h2 id="stack-h">Stack trace</h2>
              {e.stack_trace.length === 0 ? <p class="muted">None.</p> : (
                <ol class="stack">
                  {e.stack_trace.map((f, i) => (
                    <li key={i}>
                      <code>{f.function ?? '?'}</code> in <code>{f.filename ?? f.abs_path ?? f.module ?? '?'}{f.lineno !== null && `:${f.lineno}`}</code>
                      {f.context.length > 0 && <pre>{f.context.map(([n, line]) => `${n === f.lineno ? '>' : ' '} ${n} ${line}`).join('\n')}</pre>}
                    </li>
                  ))}
                </ol>
              )}
            </section>
            <section aria-labelledby="ev-h">
              <h2 id="ev-h">Events</h2>
              <Show loaded={events}>
                {(page) => (
                  <table>
                    <thead><tr><th scope="col">When</th><th scope="col">Level</th><th scope="col">Environment</th><th scope="col">Release</th><th scope="col">Message</th></tr></thead>
                    <tbody>
                      {page.items.map((ev) => (
                        <tr key={ev.id}><td>{when(ev.timestamp)}</td><td>{ev.level}</td><td>{ev.environment}</td><td>{ev.release}</td><td>{ev.message}</td></tr>
                      ))}
                    </tbody>
                  </table>
                )}
              </Show>
            </section>
          </article>
        );
      }}
    </Show>
  );
}

// ---- releases, environments and deployments ----

function Releases(props: { id: string }) {
  const client = useClient();
  const releases = useLoad(() => client.releases.all(props.id, { per_page: 50 }).page(1), [props.id]);
  return (
    <section aria-label="Releases">
      <Show loaded={releases}>
        {(page) =>
          page.items.length === 0 ? (
            <p class="muted">No releases.</p>
          ) : (
            page.items.map((r) => (
              <article key={r.tag_name} class="release" aria-labelledby={`release-${r.tag_name}`}>
                <h2 id={`release-${r.tag_name}`}>{r.name} <span class="muted">{r.tag_name} · released {when(r.released_at)}</span></h2>
                {r.description && <p class="body">{r.description}</p>}
                {r.assets.links.length > 0 && (
                  <ul class="list" aria-label={`Links of ${r.name}`}>
                    {r.assets.links.map((l) => (
                      <li key={l.id}><a href={l.url} rel="noreferrer">{l.name}</a> <span class="muted">{l.link_type}</span></li>
                    ))}
                  </ul>
                )}
              </article>
            ))
          )
        }
      </Show>
    </section>
  );
}

function Environments(props: { id: string }) {
  const client = useClient();
  const environments = useLoad(() => client.environments.all(props.id, { per_page: 50 }).page(1), [props.id]);
  const deployments = useLoad(() => client.deployments.all(props.id, { per_page: 50, order_by: 'id', sort: 'desc' }).page(1), [props.id]);
  return (
    <section aria-label="Environments">
      <Show loaded={environments}>
        {(page) => (page.items.length === 0 ? <p class="muted">No environments.</p> : (
          <table>
            <thead><tr><th scope="col">Environment</th><th scope="col">Tier</th><th scope="col">State</th></tr></thead>
            <tbody>{page.items.map((e) => <tr key={e.id}><td>{e.name}</td><td>{e.tier}</td><td>{e.state}</td></tr>)}</tbody>
          </table>
        ))}
      </Show>
      <h2>Deployments</h2>
      <Show loaded={deployments}>
        {(page) => (page.items.length === 0 ? <p class="muted">No deployments.</p> : (
          <table>
            <thead><tr><th scope="col">Deployment</th><th scope="col">Environment</th><th scope="col">Status</th><th scope="col">Ref</th><th scope="col">Job</th><th scope="col">Created</th></tr></thead>
            <tbody>
              {page.items.map((d) => (
                <tr key={d.id}>
                  <td>#{d.iid}</td>
                  <td>{d.environment.name}</td>
                  <td><Status status={d.status} /></td>
                  <td>{d.ref} <span class="muted">{d.sha.slice(0, 8)}</span></td>
                  <td>{d.deployable ? <Link to={`${p(props.id)}/jobs/${d.deployable.id}`}>{d.deployable.name}</Link> : '—'}</td>
                  <td>{when(d.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ))}
      </Show>
    </section>
  );
}

// ---- DORA ----

const METRICS = [
  ['deployment_frequency', 'Deployment frequency (deployments)', (v: number) => String(v)],
  ['lead_time_for_changes', 'Lead time for changes', (v: number) => `${(v / 3600).toFixed(1)} h`],
  ['time_to_restore_service', 'Time to restore service', (v: number) => `${(v / 3600).toFixed(1)} h`],
  ['change_failure_rate', 'Change failure rate', (v: number) => `${Math.round(v * 100)} %`],
] as const;

function Dora(props: { scope: { project: string } | { group: string } }) {
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

// ---- admin ----

export function Admin() {
  const client = useClient();
  // The API decides: application settings answer 403 to anyone but an administrator.
  const settings = useLoad(() => client.applicationSettings.show(), []);
  const users = useLoad(() => (settings.data ? client.users.all({ per_page: 100 }).page(1) : Promise.resolve(null)), [settings.data]);
  return (
    <>
      <h1>Admin</h1>
      <Show loaded={settings}>
        {() => (
          <section aria-labelledby="users-h">
            <h2 id="users-h">Users</h2>
            <Show loaded={users}>
              {(page) =>
                page && (
                  <table>
                    <thead><tr><th scope="col">Username</th><th scope="col">Name</th><th scope="col">State</th><th scope="col">Admin</th></tr></thead>
                    <tbody>
                      {page.items.map((u) => (
                        <tr key={u.id}><td>{u.username}</td><td>{u.name}</td><td>{u.state}</td><td>{'is_admin' in u && u.is_admin ? 'yes' : 'no'}</td></tr>
                      ))}
                    </tbody>
                  </table>
                )
              }
            </Show>
          </section>
        )}
      </Show>
    </>
  );
}
