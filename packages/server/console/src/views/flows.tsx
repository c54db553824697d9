/**
 * Agent flows of the signed-in user (GitLab lists them only in GraphQL, `duoWorkflowWorkflows`,
 * paged by cursor), and one flow with its trace (the chat log) and checkpoints (REST).
 */
import type { Page } from '@forgelet/client';
import { useRef } from 'preact/hooks';
import { BASE, Link } from '../router.js';
import { PER_PAGE, PagedList, Show, Status, useClient, useLoad, usePaged, when } from './shared.js';

interface FlowNode {
  id: string;
  title: string | null;
  goal: string | null;
  status: string | null;
  workflowDefinition: string | null;
  createdAt: string;
  updatedAt: string;
  project: { fullPath: string } | null;
}

const FLOWS = `query($first: Int!, $after: String) {
  duoWorkflowWorkflows(first: $first, after: $after, sort: CREATED_DESC) {
    nodes { id title goal status: statusName workflowDefinition createdAt updatedAt project { fullPath } }
    pageInfo { hasNextPage endCursor }
  }
}`;

const idOf = (gid: string) => Number(gid.slice(gid.lastIndexOf('/') + 1));

export function Flows() {
  const client = useClient();
  // Page n starts after cursors[n] (learnt from page n-1).
  const cursors = useRef<Record<number, string | null>>({ 1: null });
  const flows = usePaged(async (page): Promise<Page<FlowNode>> => {
    const answer = await client.graphql<{ duoWorkflowWorkflows: { nodes: FlowNode[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } }>(FLOWS, {
      first: PER_PAGE,
      after: cursors.current[page] ?? null,
    });
    if (answer.errors?.length) throw new Error(answer.errors.map((e) => e.message).join('; '));
    const list = answer.data!.duoWorkflowWorkflows;
    if (list.pageInfo.hasNextPage) cursors.current[page + 1] = list.pageInfo.endCursor;
    return {
      items: list.nodes,
      pagination: { page, perPage: PER_PAGE, total: null, totalPages: null, nextPage: list.pageInfo.hasNextPage ? page + 1 : null, prevPage: page > 1 ? page - 1 : null, links: {} },
    };
  }, []);
  return (
    <>
      <h1>Agent flows</h1>
      <PagedList paged={flows} label="Agent flows" empty="No agent flows.">
        {(items) => (
          <table>
            <thead><tr><th scope="col">Flow</th><th scope="col">Status</th><th scope="col">Definition</th><th scope="col">Project</th><th scope="col">Updated</th></tr></thead>
            <tbody>
              {items.map((f) => (
                <tr key={f.id}>
                  <td><Link to={`${BASE}/flows/${idOf(f.id)}`}>{f.title || f.goal || `Flow ${idOf(f.id)}`}</Link></td>
                  <td><Status status={f.status ?? 'unknown'} /></td>
                  <td>{f.workflowDefinition}</td>
                  <td>{f.project?.fullPath ?? '—'}</td>
                  <td>{when(f.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </PagedList>
    </>
  );
}

export function FlowDetail(props: { id: number }) {
  const client = useClient();
  const flow = useLoad(() => client.agentFlows.show(props.id), [props.id]);
  const trace = useLoad(() => client.agentFlows.trace(props.id), [props.id]);
  const checkpoints = usePaged((page) => client.agentFlows.checkpoints(props.id, { per_page: PER_PAGE }).page(page), [props.id]);
  return (
    <Show loaded={flow}>
      {(f) => (
        <>
          <p class="crumbs"><Link to={`${BASE}/flows`}>Agent flows</Link></p>
          <h1>{f.title || `Flow ${f.id}`} <Status status={f.status} /></h1>
          <p class="muted">
            {f.workflow_definition ?? 'flow'} · {f.environment ?? '—'} · privileges {f.agent_privileges_names.join(', ') || 'none'}
            {f.workload?.id && ` · workload ${f.workload.id}`}
          </p>
          {f.summary && <p class="body">{f.summary}</p>}
          <section aria-labelledby="trace-h">
            <h2 id="trace-h">Trace</h2>
            <Show loaded={trace}>
              {(lines) =>
                lines.length === 0 ? (
                  <p class="muted">No messages yet.</p>
                ) : (
                  <ol class="notes trace">
                    {lines.map((l, i) => (
                      <li key={i}>
                        <p class="meta">{String(l.message_type ?? l.role ?? l.type ?? 'message')}{typeof l.timestamp === 'string' && ` · ${when(l.timestamp)}`}</p>
                        <p class="body">{typeof l.content === 'string' ? l.content : JSON.stringify(l)}</p>
                      </li>
                    ))}
                  </ol>
                )
              }
            </Show>
          </section>
          <section aria-labelledby="checkpoints-h">
            <h2 id="checkpoints-h">Checkpoints</h2>
            <PagedList paged={checkpoints} label="Checkpoints" empty="No checkpoints.">
              {(items) => (
                <table>
                  <thead><tr><th scope="col">Thread time</th><th scope="col">Parent</th><th scope="col">Metadata</th></tr></thead>
                  <tbody>
                    {items.map((c) => (
                      <tr key={c.id}><td>{c.thread_ts}</td><td>{c.parent_ts ?? '—'}</td><td><code>{JSON.stringify(c.metadata)}</code></td></tr>
                    ))}
                  </tbody>
                </table>
              )}
            </PagedList>
          </section>
        </>
      )}
    </Show>
  );
}
