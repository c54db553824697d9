/**
 * Scripting a Forgelet (or GitLab) with the typed client: create a group with a few
 * projects, add a member, and page through the projects.
 *
 *   FORGELET_URL=http://127.0.0.1:8080 FORGELET_TOKEN=glpat-… \
 *     node --conditions=source --import tsx examples/client-script/index.ts
 */
import { ApiError, Forgelet } from '@forgelet/client';

export async function main(url: string, token: string, log: (line: string) => void = console.log): Promise<string[]> {
  const api = new Forgelet({ url, token });
  const me = await api.users.current();
  log(`signed in as ${me.username}`);
  const group = await api.groups.create({ name: 'Tooling', path: 'tooling' });
  for (const name of ['bots', 'release-scripts', 'ci-templates']) {
    await api.projects.create({ name, namespace_id: String(group.id) });
  }
  const dev = await api.users.create({ username: 'devon', name: 'Devon', email: 'devon@example.com' });
  await api.groupMembers.add(group.id, { user_id: String(dev.id), access_level: 30 });
  const paths: string[] = [];
  for await (const project of api.groups.projects(group.id, { per_page: 2, order_by: 'path', sort: 'asc' })) {
    paths.push(project.path_with_namespace);
  }
  for (const path of paths) log(path);
  try {
    await api.projects.show('tooling/missing');
  } catch (err) {
    if (err instanceof ApiError) log(`expected: ${err.status} ${err.message}`);
  }
  return paths;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { FORGELET_URL, FORGELET_TOKEN } = process.env;
  if (!FORGELET_URL || !FORGELET_TOKEN) throw new Error('set FORGELET_URL and FORGELET_TOKEN');
  await main(FORGELET_URL, FORGELET_TOKEN);
}
