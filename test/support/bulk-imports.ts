/** A small source world for direct transfer tests: group `src-grp` with a subgroup, a project, labels, milestones, issues and notes. */
import type { TestForgelet } from './server.js';

async function ok(f: TestForgelet, method: string, path: string, body: unknown): Promise<any> {
  const r = await f.api(method, path, { body });
  if (r.status !== 201 && r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.body;
}

export async function seedSourceGroup(f: TestForgelet, path = 'src-grp'): Promise<{ group: any; project: any }> {
  const group = await ok(f, 'POST', '/groups', { name: 'Source Group', path });
  await ok(f, 'POST', '/groups', { name: 'Sub', path: 'sub', parent_id: group.id });
  await ok(f, 'POST', `/groups/${group.id}/labels`, { name: 'g-label', color: '#123456' });
  await ok(f, 'POST', `/groups/${group.id}/milestones`, { title: 'g-ms' });
  const project = await ok(f, 'POST', '/projects', { name: 'proj', path: 'proj', namespace_id: group.id });
  const issue = await ok(f, 'POST', `/projects/${project.id}/issues`, { title: 'an issue', labels: 'g-label' });
  await ok(f, 'POST', `/projects/${project.id}/issues/${issue.iid}/notes`, { body: 'a note' });
  return { group, project };
}

export async function waitForImport(f: TestForgelet, id: number, timeoutMs = 15_000): Promise<any> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await f.api('GET', `/bulk_imports/${id}`);
    if (['finished', 'failed', 'canceled'].includes(r.body.status)) return r.body;
    if (Date.now() > until) throw new Error(`migration ${id} still ${r.body.status}`);
    await new Promise((res) => setTimeout(res, 100));
  }
}
