/** Pipelines, their jobs and live job logs, and pipeline schedules with "run now". */
import type { Forgelet } from '@forgelet/client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { BarChart, type ChartPoint } from '../chart.js';
import { Link } from '../router.js';
import { PER_PAGE, PagedList, Show, Status, problem, projectPath, useClient, useLoad, usePaged, when } from './shared.js';

export function Pipelines(props: { id: string }) {
  const client = useClient();
  const pipelines = usePaged((page) => client.pipelines.all(props.id, { per_page: PER_PAGE }).page(page), [props.id]);
  // Durations need the pipeline itself (the list has none): those of the page shown, oldest first.
  const durations = useLoad(
    async () => {
      const items = pipelines.data?.items ?? [];
      const full = await Promise.all(items.map((pl) => client.pipelines.show(props.id, pl.id)));
      return full.reverse().map((pl): ChartPoint => ({ label: `#${pl.id}`, value: pl.duration ?? null }));
    },
    [props.id, pipelines.data],
  );
  return (
    <section aria-label="Pipelines">
      <Show loaded={durations}>
        {(points) => (points.length > 0 ? <BarChart id="pipeline-durations" title="Pipeline durations (seconds)" points={points} format={(v) => `${Math.round(v)} s`} /> : null)}
      </Show>
      <PagedList paged={pipelines} label="Pipelines" empty="No pipelines.">
        {(items) => (
          <table>
            <thead><tr><th scope="col">Pipeline</th><th scope="col">Status</th><th scope="col">Ref</th><th scope="col">Source</th><th scope="col">Created</th></tr></thead>
            <tbody>
              {items.map((pl) => (
                <tr key={pl.id}>
                  <td><Link to={`${projectPath(props.id)}/pipelines/${pl.id}`}>#{pl.id}</Link></td>
                  <td><Status status={pl.status} /></td>
                  <td>{pl.ref}</td>
                  <td>{pl.source}</td>
                  <td>{when(pl.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </PagedList>
    </section>
  );
}

const LIVE = new Set(['created', 'pending', 'running', 'waiting_for_resource', 'preparing', 'scheduled']);

export function Pipeline(props: { id: string; pipelineId: number }) {
  const client = useClient();
  const pipeline = useLoad(() => client.pipelines.show(props.id, props.pipelineId), [props.id, props.pipelineId]);
  // Every job (all pages): a pipeline's stages are drawn whole.
  const jobs = useLoad(() => client.pipelines.jobs(props.id, props.pipelineId, { per_page: 100 }).toArray(), [props.id, props.pipelineId]);
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
            {(all) => {
              const stages: string[] = [];
              for (const j of [...all].sort((a, b) => a.id - b.id)) if (!stages.includes(j.stage)) stages.push(j.stage);
              return (
                <div class="stages">
                  {stages.map((stage) => (
                    <section key={stage} class="stage" aria-label={`Stage ${stage}`}>
                      <h3>{stage}</h3>
                      <ul class="list">
                        {all.filter((j) => j.stage === stage).map((j) => (
                          <li key={j.id}>
                            <Link to={`${projectPath(props.id)}/jobs/${j.id}`}>{j.name}</Link> <Status status={j.status} />
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

type JobEntity = Awaited<ReturnType<Forgelet['jobs']['show']>>;

/**
 * A job and its log. While the job runs, the page asks every second for the part of the log
 * past what it has (`Range: bytes=N-`, answered 206), so a long log is not downloaded again;
 * once the job has finished it reads the rest one last time and stops.
 */
export function Job(props: { id: string; jobId: number }) {
  const client = useClient();
  const [state, setState] = useState<{ job?: JobEntity; log: string; error?: Error; fetched: number }>({ log: '', fetched: 0 });
  const pre = useRef<HTMLPreElement>(null);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let log = '';
    let size = 0;
    let fetched = 0;
    const poll = async () => {
      try {
        const job = await client.jobs.show(props.id, props.jobId);
        const part = await client.jobs.traceFrom(props.id, props.jobId, size);
        if (!live) return;
        const reset = part.size < size;
        if (reset) {
          // The log was replaced (a retried job): read it whole.
          log = '';
          size = 0;
        } else {
          log += part.text;
          size = part.size;
        }
        fetched += part.received;
        setState({ job, log, fetched });
        // The status was read before the log: a job that has finished has its whole log in `part`.
        if (LIVE.has(job.status) || reset) timer = setTimeout(poll, reset ? 0 : 1000);
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
        Stage {j.stage} · <Link to={`${projectPath(props.id)}/pipelines/${j.pipeline.id}`}>pipeline #{j.pipeline.id}</Link>
        {LIVE.has(j.status) ? ' · log streaming' : ' · log complete'}
      </p>
      <pre class="log" id="job-log" ref={pre} tabIndex={0} aria-label="Job log" aria-live="polite" data-bytes-fetched={state.fetched}>{state.log}</pre>
    </article>
  );
}

export function Schedules(props: { id: string }) {
  const client = useClient();
  const schedules = usePaged((page) => client.pipelineSchedules.all(props.id, { per_page: PER_PAGE }).page(page), [props.id]);
  const [said, setSaid] = useState<string>('');
  return (
    <section aria-label="Pipeline schedules">
      <p role="status" class="notice">{said}</p>
      <PagedList paged={schedules} label="Schedules" empty="No schedules.">
        {(items) => (
          <table>
            <thead><tr><th scope="col">Schedule</th><th scope="col">Cron</th><th scope="col">Ref</th><th scope="col">Next run</th><th scope="col">Active</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {items.map((s) => (
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
        )}
      </PagedList>
    </section>
  );
}
