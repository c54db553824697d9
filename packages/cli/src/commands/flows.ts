/**
 * `forgelet flows …`: agent flows on a running server.
 *   list <project>           the project's flow workloads (CI pipelines of source duo_workflow):
 *                            the flows API has no list endpoint (GitLab lists flows in GraphQL)
 *   show <flow_id>           one flow
 *   trigger <project>        start a flow: a catalog flow enabled for the project (by item name,
 *                            its consumer id looked up in GraphQL's aiCatalogConfiguredItems) or a
 *                            workflow definition
 *   trace <project> <flow_id> the flow, its checkpoints and its chat log (trace.jsonl)
 *   callbacks list|create|delete|deliveries   flow callback endpoints (organization owners)
 */
import type { Command } from 'commander';
import type { CheckpointEntity, DeliveryEntity, FlowCallbackEntity, FlowEntity, JobEntity, PipelineListEntity } from '@forgelet/core';
import { CliError, UsageError } from '../errors.js';
import { formatFields, writeJson, type CliIo } from '../io.js';
import { fetchListing, pagingOptions, parsePaging, type PagingFlags } from '../paging.js';
import { call, remoteOptions, resolveRemote, type RemoteFlags } from '../remote.js';
import { isLive, withSpinner } from '../ui/live.js';

interface Flags extends RemoteFlags {
  json?: boolean;
}
interface TriggerFlags extends Flags {
  catalogItem?: string;
  definition?: string;
  goal?: string;
  start?: boolean;
}
interface TraceFlags extends Flags {
  thread?: string;
}
interface CallbackCreateFlags extends Flags {
  callbackUrl: string;
  name?: string;
  signingToken?: string;
  serviceToken?: string;
}

const FLOW_SOURCE = 'duo_workflow';
const STATUS_COLORS: Record<string, string> = { finished: 'green', success: 'green', failed: 'red', stopped: 'yellow', canceled: 'yellow', running: 'cyan', created: 'gray', pending: 'gray' };
const colored = (status: string) => ({ text: status, color: STATUS_COLORS[status] });

function idArg(what: string, value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`${what} must be a positive integer, got "${value}"`);
  return Number(value);
}

export function registerFlowCommands(program: Command, io: CliIo): void {
  const flows = program.command('flows').description('agent flows on a running server');
  pagingOptions(remoteOptions(flows.command('list <project>')))
    .description("the project's flow workloads: CI pipelines of source duo_workflow and their agent_flow jobs")
    .action((project: string, flags: Flags & PagingFlags) => listWorkloads(project, flags, io));
  remoteOptions(flows.command('show <flow_id>'))
    .description('one of your flows')
    .action((id: string, flags: Flags) => show(idArg('flow id', id), flags, io));
  remoteOptions(flows.command('trigger <project>'))
    .description('start a flow in a project (Developers): a catalog flow enabled there, or a workflow definition')
    .option('--catalog-item <name>', 'the name of a catalog flow enabled for the project')
    .option('--definition <workflow_definition>', 'a workflow definition, e.g. software_development')
    .option('--goal <text>', 'what the flow should do (a catalog flow defaults to its description)')
    .option('--start', 'start its CI workload now')
    .action((project: string, flags: TriggerFlags) => trigger(project, flags, io));
  remoteOptions(flows.command('trace <project> <flow_id>'))
    .description("a flow of the project: its status, checkpoints and chat log")
    .option('--thread <thread>', "only one checkpoint's chat log: a thread_ts, or latest")
    .action((project: string, id: string, flags: TraceFlags) => trace(project, idArg('flow id', id), flags, io));

  const callbacks = flows.command('callbacks').description('flow callback endpoints: flow.started, flow.completed, flow.failed (organization owners)');
  pagingOptions(remoteOptions(callbacks.command('list')))
    .description('list callback endpoints')
    .action((flags: Flags & PagingFlags) => listCallbacks(flags, io));
  remoteOptions(callbacks.command('create'))
    .description('register a callback endpoint (HTTPS)')
    .requiredOption('--callback-url <url>', 'where deliveries are POSTed')
    .option('--name <name>', 'a name for it')
    .option('--signing-token <whsec>', 'whsec_… secret signing deliveries (Standard Webhooks)')
    .option('--service-token <token>', 'sent verbatim in X-Service-Token')
    .action((flags: CallbackCreateFlags) => createCallback(flags, io));
  remoteOptions(callbacks.command('delete <callback_id>'))
    .description('delete a callback endpoint')
    .action((id: string, flags: Flags) => deleteCallback(idArg('callback id', id), flags, io));
  pagingOptions(remoteOptions(callbacks.command('deliveries <callback_id>')))
    .description('deliveries to a callback endpoint with every attempt')
    .action((id: string, flags: Flags & PagingFlags) => listDeliveries(idArg('callback id', id), flags, io));
}

async function listWorkloads(project: string, flags: Flags & PagingFlags, io: CliIo): Promise<void> {
  const paging = parsePaging(flags);
  const remote = resolveRemote(flags, io.env);
  const { items, footer } = await withSpinner(io.stderr, isLive(io.stderr, flags.json), 'Loading flow workloads', () =>
    call(remote, async (api) => {
      const listing = await fetchListing<PipelineListEntity>(api.pipelines.all(project, { source: FLOW_SOURCE, per_page: paging.perPage } as never), paging);
      const items = await Promise.all(
        listing.items.map(async (pipeline) => ({ pipeline, jobs: (await api.pipelines.jobs(project, pipeline.id, { per_page: 100 }).page(1)).items as JobEntity[] })),
      );
      return { items, footer: listing.footer };
    }),
  );
  if (flags.json) return writeJson(io.stdout, items.map(({ pipeline, jobs }) => ({ ...pipeline, jobs })));
  if (items.length === 0) return void io.stdout.write('No flow workloads.\n');
  const { renderTable } = await import('../ui/table.js');
  const rows = items.map(({ pipeline, jobs }) => {
    const job = jobs[0];
    return [String(pipeline.id), colored(pipeline.status), job ? `${job.id} ${job.name}` : '-', job?.user?.username ?? '-', pipeline.ref, pipeline.created_at];
  });
  io.stdout.write(renderTable(['PIPELINE', 'STATUS', 'JOB', 'USER', 'REF', 'CREATED'], rows, io.stdout.columns) + footer);
}

function describeFlow(flow: FlowEntity): string {
  const lines: [string, string][] = [
    ['Flow', String(flow.id)],
    ['Status', flow.status],
    ['Project', flow.project_id === null ? '-' : String(flow.project_id)],
    ...(flow.namespace_id !== null ? ([['Namespace', String(flow.namespace_id)]] as [string, string][]) : []),
    ['Definition', flow.workflow_definition ?? '-'],
    ...(flow.ai_catalog_item_version_id !== null ? ([['Catalog version', String(flow.ai_catalog_item_version_id)]] as [string, string][]) : []),
    ['Environment', flow.environment ?? '-'],
    ['Privileges', flow.agent_privileges_names.join(', ') || '-'],
    ['Title', flow.title || '-'],
  ];
  return formatFields(lines);
}

async function show(id: number, flags: Flags, io: CliIo): Promise<void> {
  const remote = resolveRemote(flags, io.env);
  const flow = await call(remote, (api) => api.agentFlows.show(id));
  if (flags.json) return writeJson(io.stdout, flow);
  io.stdout.write(describeFlow(flow));
}

async function trigger(project: string, flags: TriggerFlags, io: CliIo): Promise<void> {
  if ((flags.catalogItem === undefined) === (flags.definition === undefined)) throw new UsageError('give exactly one of --catalog-item, --definition');
  const remote = resolveRemote(flags, io.env);
  const flow = await call(remote, async (api) => {
    const projectId = /^\d+$/.test(project) ? Number(project) : (await api.projects.show(project)).id;
    let consumer: number | undefined;
    if (flags.catalogItem !== undefined) {
      consumer = (await api.aiCatalog.consumerIdFor(projectId, flags.catalogItem)) ?? undefined;
      if (consumer === undefined) throw new CliError(`no catalog item named "${flags.catalogItem}" is enabled for ${project}`);
    }
    return api.agentFlows.create({
      project_id: String(projectId),
      ...(consumer !== undefined ? { ai_catalog_item_consumer_id: consumer } : { workflow_definition: flags.definition! }),
      ...(flags.goal !== undefined && { goal: flags.goal }),
      ...(flags.start && { start_workflow: true }),
    });
  });
  if (flags.json) return writeJson(io.stdout, flow);
  io.stdout.write(describeFlow(flow));
  if (flow.workload?.message) io.stdout.write(formatFields([['Workload', flow.workload.id ? `${flow.workload.id} (${flow.workload.message})` : flow.workload.message]]));
}

/** One chat log entry for people: `time type: content`, else its JSON. */
function chatLine(entry: Record<string, unknown>): string {
  const type = typeof entry.message_type === 'string' ? entry.message_type : typeof entry.type === 'string' ? entry.type : null;
  const content = typeof entry.content === 'string' ? entry.content : null;
  if (type === null && content === null) return JSON.stringify(entry);
  const time = typeof entry.timestamp === 'string' ? `${entry.timestamp} ` : '';
  return `${time}${type ?? 'message'}: ${content ?? JSON.stringify(entry)}`;
}

async function trace(project: string, id: number, flags: TraceFlags, io: CliIo): Promise<void> {
  const remote = resolveRemote(flags, io.env);
  const { flow, checkpoints, entries } = await withSpinner(io.stderr, isLive(io.stderr, flags.json), `Loading flow ${id}`, () =>
    call(remote, async (api) => {
      const [proj, flow] = await Promise.all([api.projects.show(project), api.agentFlows.show(id)]);
      if (flow.project_id !== proj.id) throw new CliError(`flow ${id} is not a flow of project ${project}`);
      const [checkpoints, entries] = await Promise.all([
        api.agentFlows.checkpoints(id, { per_page: 100 }).toArray() as Promise<CheckpointEntity[]>,
        api.agentFlows.trace(id, flags.thread !== undefined ? { thread: flags.thread } : {}),
      ]);
      return { flow, checkpoints: checkpoints.reverse(), entries };
    }),
  );
  if (flags.json) return writeJson(io.stdout, { flow, checkpoints, trace: entries });
  let out = describeFlow(flow);
  const { renderTable } = await import('../ui/table.js');
  out += `\nCheckpoints (${checkpoints.length}):\n`;
  if (checkpoints.length) {
    out += renderTable(['ID', 'THREAD', 'PARENT', 'STEP'], checkpoints.map((c) => [String(c.id), c.thread_ts, c.parent_ts ?? '-', stepOf(c)]), io.stdout.columns);
  }
  out += `\nChat log (${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}):\n`;
  out += entries.map((e) => `  ${chatLine(e)}\n`).join('');
  io.stdout.write(out);
}

function stepOf(c: CheckpointEntity): string {
  const meta = c.metadata as { step?: unknown; writes?: unknown } | null;
  return meta && (typeof meta.step === 'number' || typeof meta.step === 'string') ? String(meta.step) : '-';
}

async function listCallbacks(flags: Flags & PagingFlags, io: CliIo): Promise<void> {
  const paging = parsePaging(flags);
  const remote = resolveRemote(flags, io.env);
  const { items, footer } = await call(remote, (api) => fetchListing<FlowCallbackEntity>(api.agentFlows.callbacks({ per_page: paging.perPage }), paging));
  if (flags.json) return writeJson(io.stdout, items);
  if (items.length === 0) return void io.stdout.write('No flow callbacks.\n');
  const { renderTable } = await import('../ui/table.js');
  const rows = items.map((c) => [String(c.id), c.name ?? '-', c.signing_token_set ? 'yes' : 'no', c.token_set ? 'yes' : 'no', c.created_at, c.url]);
  io.stdout.write(renderTable(['ID', 'NAME', 'SIGNED', 'TOKEN', 'CREATED', 'URL'], rows, io.stdout.columns) + footer);
}

async function createCallback(flags: CallbackCreateFlags, io: CliIo): Promise<void> {
  const remote = resolveRemote(flags, io.env);
  const created = await call(remote, (api) =>
    api.agentFlows.createCallback({
      url: flags.callbackUrl,
      ...(flags.name !== undefined && { name: flags.name }),
      ...(flags.signingToken !== undefined && { signing_token: flags.signingToken }),
      ...(flags.serviceToken !== undefined && { token: flags.serviceToken }),
    }),
  );
  if (flags.json) return writeJson(io.stdout, created);
  io.stdout.write(`Created flow callback ${created.id} for ${created.url}.\n`);
}

async function deleteCallback(id: number, flags: Flags, io: CliIo): Promise<void> {
  const remote = resolveRemote(flags, io.env);
  await call(remote, (api) => api.agentFlows.removeCallback(id));
  if (flags.json) return writeJson(io.stdout, { id, deleted: true });
  io.stdout.write(`Deleted flow callback ${id}.\n`);
}

async function listDeliveries(id: number, flags: Flags & PagingFlags, io: CliIo): Promise<void> {
  const paging = parsePaging(flags);
  const remote = resolveRemote(flags, io.env);
  const { items, footer } = await call(remote, (api) => fetchListing<DeliveryEntity>(api.agentFlows.deliveries(id, { per_page: paging.perPage }), paging));
  if (flags.json) return writeJson(io.stdout, items);
  if (items.length === 0) return void io.stdout.write('No deliveries.\n');
  const { renderTable } = await import('../ui/table.js');
  const rows = items.map((d) => [String(d.id), d.event, d.flow_id === null ? '-' : String(d.flow_id), colored(d.status), String(d.attempts.length), d.next_attempt_at ?? '-', d.created_at]);
  io.stdout.write(renderTable(['ID', 'EVENT', 'FLOW', 'STATUS', 'ATTEMPTS', 'NEXT ATTEMPT', 'CREATED'], rows, io.stdout.columns) + footer);
}
