/**
 * Scripting a Forgelet (or GitLab) with the typed client: create a group with a few
 * projects, add a member, page through the projects, then give one project a CI file and a
 * nightly pipeline schedule with a variable.
 *
 *   FORGELET_URL=http://127.0.0.1:8080 FORGELET_TOKEN=glpat-… \
 *     node --conditions=source --import tsx examples/client-script/index.ts
 */
import { ApiError, Forgelet } from '@forgelet/client';

type Schedule = Awaited<ReturnType<Forgelet['pipelineSchedules']['show']>>;

export interface ScriptResult {
  /** The group's projects, as paged through. */
  paths: string[];
  /** The nightly schedule as GET …/pipeline_schedules/:id answers it (with its variables). */
  schedule: Schedule;
}

export async function main(url: string, token: string, log: (line: string) => void = console.log): Promise<ScriptResult> {
  const api = new Forgelet({ url, token });
  const me = await api.users.current();
  log(`signed in as ${me.username}`);

  // A group, three projects in it and a Developer.
  const group = await api.groups.create({ name: 'Tooling', path: 'tooling' });
  const projects = [];
  for (const name of ['bots', 'release-scripts', 'ci-templates']) {
    projects.push(await api.projects.create({ name, namespace_id: String(group.id) }));
  }
  const dev = await api.users.create({ username: 'devon', name: 'Devon', email: 'devon@example.com' });
  await api.groupMembers.add(group.id, { user_id: String(dev.id), access_level: 30 });

  // Paging: the client follows the Link headers, two projects per request here.
  const paths: string[] = [];
  for await (const project of api.groups.projects(group.id, { per_page: 2, order_by: 'path', sort: 'asc' })) {
    paths.push(project.path_with_namespace);
  }
  for (const path of paths) log(path);

  // A pipeline schedule needs a branch with a CI file: the first commit creates `main`.
  const bots = projects[0]!;
  await api.repositoryFiles.create(bots.id, '.gitlab-ci.yml', 'main', 'nightly:\n  script: echo "nightly run"\n', 'Add CI');
  const created = await api.pipelineSchedules.create(bots.id, {
    description: 'Nightly build',
    ref: 'main',
    cron: '0 2 * * *',
    cron_timezone: 'UTC',
  });
  await api.pipelineScheduleVariables.create(bots.id, created.id, { key: 'MODE', value: 'nightly' });
  const schedule = await api.pipelineSchedules.show(bots.id, created.id);
  log(`schedule ${schedule.id} "${schedule.description}" on ${schedule.ref}, next run ${schedule.next_run_at}`);

  // Errors are ApiErrors carrying GitLab's status and message.
  try {
    await api.projects.show('tooling/missing');
  } catch (err) {
    if (err instanceof ApiError) log(`expected: ${err.status} ${err.message}`);
  }
  return { paths, schedule };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { FORGELET_URL, FORGELET_TOKEN } = process.env;
  if (!FORGELET_URL || !FORGELET_TOKEN) throw new Error('set FORGELET_URL and FORGELET_TOKEN');
  await main(FORGELET_URL, FORGELET_TOKEN);
}
