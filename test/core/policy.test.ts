/**
 * Who may do what, through the use cases with a real database and a fixed clock: every role
 * against private, internal and public groups and projects.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  addMember,
  ANONYMOUS,
  createForge,
  createGroup,
  createProject,
  createUser,
  editMember,
  fixedClock,
  ForbiddenError,
  getGroup,
  getProject,
  listProjects,
  NotFoundError,
  UnauthorizedError,
  updateGroup,
  updateProject,
  type ControllableClock,
  type Ctx,
  type Forge,
} from '@forgelet/core';
import { createTestDatabaseUrl, DIALECTS } from '../support/databases.js';

const VISIBILITIES = ['private', 'internal', 'public'] as const;
type Visibility = (typeof VISIBILITIES)[number];
const ROLES = ['anonymous', 'outsider', 'external', 'expired', 'guest', 'reporter', 'developer', 'maintainer', 'owner', 'admin'] as const;
type Role = (typeof ROLES)[number];
const LEVEL: Partial<Record<Role, number>> = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 };
type Outcome = 'ok' | 'not_found' | 'forbidden' | 'unauthorized';

/** GitLab's rules, written out independently of the implementation. */
function expected(role: Role, visibility: Visibility, minLevel: number | 'read'): Outcome {
  const signedIn = role !== 'anonymous';
  const level = LEVEL[role] ?? 0;
  const readable =
    role === 'admin' || visibility === 'public' || (visibility === 'internal' && signedIn && role !== 'external') || level >= 10;
  if (!readable) return 'not_found';
  if (minLevel === 'read' || role === 'admin' || level >= minLevel) return 'ok';
  return signedIn ? 'forbidden' : 'unauthorized';
}

async function outcome(work: Promise<unknown>, notFound: string): Promise<Outcome> {
  try {
    await work;
    return 'ok';
  } catch (err) {
    if (err instanceof NotFoundError) {
      assert.deepEqual(err.body, { message: notFound });
      return 'not_found';
    }
    if (err instanceof ForbiddenError) return 'forbidden';
    if (err instanceof UnauthorizedError) return 'unauthorized';
    throw err;
  }
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: policy`, () => {
    let forge: Forge;
    let drop: () => Promise<void>;
    let clock: ControllableClock;
    const ctx: Partial<Record<Role, Ctx>> = {};
    const groups: Partial<Record<Visibility, { id: number; path: string }>> = {};
    const projects: Partial<Record<Visibility, { id: number }>> = {};
    let pmId: number;

    before(async () => {
      const database = await createTestDatabaseUrl(dialect);
      drop = database.drop;
      clock = fixedClock('2024-06-01T12:00:00.000Z');
      forge = await createForge({ databaseUrl: database.url, clock });
      await forge.bootstrapRoot();
      const root = await forge.contextFor('root');
      for (const role of ROLES) {
        if (role === 'anonymous') continue;
        await createUser(root, { username: role, name: role, email: `${role}.user@example.com`, external: role === 'external', admin: role === 'admin' });
      }
      for (const role of ROLES) ctx[role] = role === 'anonymous' ? forge.context(ANONYMOUS) : await forge.contextFor(role);
      const ids = Object.fromEntries(await Promise.all(ROLES.filter((r) => r !== 'anonymous').map(async (r) => [r, (await forge.contextFor(r)).actor.user!.id])));
      pmId = (await createUser(root, { username: 'pm', name: 'pm', email: 'pm@example.com' })).id;

      for (const visibility of VISIBILITIES) {
        const g = await createGroup(ctx.owner!, { name: `G ${visibility}`, path: `g-${visibility}`, visibility });
        groups[visibility] = g;
        projects[visibility] = await createProject(ctx.owner!, { name: 'p', namespace_id: String(g.id), visibility });
        await addMember(root, 'projects', { id: `g-${visibility}/p`, username: 'pm', access_level: 20 });
        for (const role of ['guest', 'reporter', 'developer', 'maintainer'] as const) {
          await addMember(root, 'groups', { id: String(g.id), user_id: String(ids[role]), access_level: LEVEL[role] as 10 });
        }
        // expires "today": no longer counts
        await addMember(root, 'groups', { id: String(g.id), user_id: String(ids.expired), access_level: 30, expires_at: '2024-06-01' });
      }
    });
    after(async () => {
      await forge.close();
      await drop();
    });

    const matrix = async (minLevel: number | 'read', act: (c: Ctx, v: Visibility) => Promise<unknown>, notFound: string) => {
      const actual: string[] = [];
      const wanted: string[] = [];
      for (const role of ROLES) {
        for (const v of VISIBILITIES) {
          // a fresh context per call, as per request (contexts memoise access levels)
          const c = role === 'anonymous' ? forge.context(ANONYMOUS) : await forge.contextFor(role);
          actual.push(`${role} ${v}: ${await outcome(act(c, v), notFound)}`);
          wanted.push(`${role} ${v}: ${expected(role, v, minLevel)}`);
        }
      }
      assert.deepEqual(actual, wanted);
    };

    it('reading a project', async () => {
      await matrix('read', (c, v) => getProject(c, String(projects[v]!.id)), '404 Project Not Found');
    });

    it('changing project settings needs Maintainer', async () => {
      await matrix(40, (c, v) => updateProject(c, { id: String(projects[v]!.id), description: 'same every time' }), '404 Project Not Found');
    });

    it('managing project members needs Maintainer', async () => {
      await matrix(40, (c, v) => editMember(c, 'projects', { id: String(projects[v]!.id), user_id: pmId, access_level: 20 }), '404 Project Not Found');
    });

    it('reading a group', async () => {
      await matrix('read', (c, v) => getGroup(c, groups[v]!.path), '404 Group Not Found');
    });

    it('changing group settings needs Owner', async () => {
      await matrix(50, (c, v) => updateGroup(c, { id: String(groups[v]!.id), description: 'same every time' }), '404 Group Not Found');
    });

    it('project lists hold exactly the readable projects', async () => {
      for (const role of ROLES) {
        const page = await listProjects(ctx[role]!, { order_by: 'id', sort: 'asc', page: 1, per_page: 100 });
        const listed = VISIBILITIES.filter((v) => page.items.some((p) => p.id === projects[v]!.id));
        const readable = VISIBILITIES.filter((v) => expected(role, v, 'read') === 'ok');
        assert.deepEqual(listed, readable, role);
      }
    });

    it('a membership stops counting on its expiry date', async () => {
      const root = await forge.contextFor('root');
      await createUser(root, { username: 'temp', name: 'temp', email: 'temp@example.com' });
      await addMember(root, 'groups', { id: 'g-private', user_id: 'temp', access_level: 30, expires_at: '2024-06-02' });
      const temp = await forge.contextFor('temp');
      assert.equal((await getProject(temp, 'g-private/p')).id, projects.private!.id);
      clock.advance(24 * 3600_000);
      try {
        await assert.rejects(getProject(await forge.contextFor('temp'), 'g-private/p'), NotFoundError);
        await assert.rejects(getGroup(await forge.contextFor('temp'), 'g-private'), NotFoundError);
      } finally {
        clock.advance(-24 * 3600_000);
      }
    });
  });
}
