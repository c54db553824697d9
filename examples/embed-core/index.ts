/**
 * Embedding the core: no HTTP at all. Creates an in-memory forge, a group with a project,
 * and lists the projects the way GET /groups/:id/projects would.
 *
 *   node --conditions=source --import tsx examples/embed-core/index.ts
 */
import { createForge, createGroup, createProject, listGroupProjects } from '@forgelet/core';

export async function main(log: (line: string) => void = console.log): Promise<string[]> {
  const forge = await createForge({ databaseUrl: ':memory:' });
  try {
    await forge.bootstrapRoot();
    const ctx = await forge.contextFor('root');
    const group = await createGroup(ctx, { name: 'Platform', path: 'platform' });
    await createProject(ctx, { name: 'API', namespace_id: String(group.id) });
    await createProject(ctx, { name: 'Web', namespace_id: 'platform' });
    const page = await listGroupProjects(ctx, { id: 'platform', order_by: 'name', sort: 'asc', page: 1, per_page: 20 });
    const paths = page.items.map((p) => p.path_with_namespace);
    for (const path of paths) log(path);
    return paths;
  } finally {
    await forge.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
