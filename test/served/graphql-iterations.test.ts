/**
 * GraphQL iterations and cadences on the served binary: GitLab's cadence mutations create,
 * update and destroy what the REST alias (/api/v4/forgelet/groups/:id/iteration_cadences)
 * shows, field for field; invalid input lands in the payload's `errors`; a caller who may not
 * manage cadences gets GitLab's top-level error.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: GraphQL iterations and iteration cadences`, () => {
    let s: ServedForgelet;
    let group: any;
    let guest: { id: number; token: string };

    const gql = async (query: string, variables?: unknown, token?: string) => {
      const r = await s.api('POST', `${s.url}/api/graphql`, { token, body: { query, variables } });
      assert.equal(r.status, 200, r.text);
      return r.body;
    };

    before(async () => {
      s = await startServed(dialect, { clock: { now: '2030-01-01T12:00:00Z' } });
      group = (await s.api('POST', '/groups', { body: { name: 'Sprints', path: 'sprints', visibility: 'public' } })).body;
      guest = await s.createUser('gql-guest');
      await s.api('POST', `/groups/${group.id}/members`, { body: { user_id: guest.id, access_level: 10 } });
    });
    after(async () => {
      await s?.stop();
    });

    it('iterationCadenceCreate, Update and Destroy match the REST alias; iterations match GET /groups/:id/iterations', async () => {
      const CREATE = `mutation($input: IterationCadenceCreateInput!) { iterationCadenceCreate(input: $input) { clientMutationId errors iterationCadence {
        id title description startDate durationInWeeks iterationsInAdvance automatic active rollOver } } }`;
      const created = await gql(CREATE, { input: { clientMutationId: 'c1', groupPath: 'sprints', title: 'Two weeks', description: 'team', startDate: '2030-01-07', durationInWeeks: 2, iterationsInAdvance: 2, automatic: true, active: true, rollOver: false } });
      assert.equal(created.errors, undefined, JSON.stringify(created.errors));
      const payload = created.data.iterationCadenceCreate;
      assert.equal(payload.clientMutationId, 'c1');
      assert.deepEqual(payload.errors, []);
      const id = Number(payload.iterationCadence.id.split('/').pop());
      assert.equal(payload.iterationCadence.id, `gid://gitlab/Iterations::Cadence/${id}`);
      const rest = (await s.api('GET', `/forgelet/groups/${group.id}/iteration_cadences/${id}`)).body;
      assert.deepEqual(payload.iterationCadence, {
        id: `gid://gitlab/Iterations::Cadence/${rest.id}`,
        title: rest.title,
        description: rest.description,
        startDate: rest.start_date,
        durationInWeeks: rest.duration_in_weeks,
        iterationsInAdvance: rest.iterations_in_advance,
        automatic: rest.automatic,
        active: rest.active,
        rollOver: rest.roll_over,
      });
      const updated = await gql('mutation($id: IterationsCadenceID!) { iterationCadenceUpdate(input: { id: $id, title: "Fortnight", rollOver: true }) { errors iterationCadence { title rollOver } } }', { id: payload.iterationCadence.id });
      assert.deepEqual(updated.data.iterationCadenceUpdate, { errors: [], iterationCadence: { title: 'Fortnight', rollOver: true } });
      assert.equal((await s.api('GET', `/forgelet/groups/${group.id}/iteration_cadences/${id}`)).body.title, 'Fortnight');

      const invalid = await gql(CREATE, { input: { groupPath: 'sprints', title: 'Bad', startDate: '2030-01-07', durationInWeeks: 9, iterationsInAdvance: 2, automatic: true, active: true } });
      assert.equal(invalid.errors, undefined);
      assert.equal(invalid.data.iterationCadenceCreate.iterationCadence, null);
      assert.ok(invalid.data.iterationCadenceCreate.errors.length > 0, JSON.stringify(invalid.data));
      const forbidden = await gql(CREATE, { input: { groupPath: 'sprints', title: 'Nope', automatic: false, active: true } }, guest.token);
      assert.deepEqual(forbidden.errors.map((e: any) => [e.message, e.path]), [["The resource that you are attempting to access does not exist or you don't have permission to perform this action", ['iterationCadenceCreate']]]);
      const wrongId = await gql('mutation { iterationCadenceDestroy(input: { id: "gid://gitlab/Project/1" }) { errors } }');
      assert.match(wrongId.errors[0].message, /is not a valid ID for Iterations::Cadence/);

      // The automatic cadence's iterations are made by a queued job: run what is due first.
      await s.runDue();
      const restIterations = (await s.api('GET', `/groups/${group.id}/iterations`)).body;
      assert.ok(restIterations.length >= 2, 'the automatic cadence scheduled iterations');
      const listed = await gql(`{ group(fullPath: "sprints") { iterationCadences { nodes { id title } } one: iterationCadences(id: "gid://gitlab/Iterations::Cadence/${id}") { nodes { title } }
        iterations { nodes { id iid sequence title description state startDate dueDate createdAt updatedAt webUrl webPath } } } }`);
      assert.equal(listed.errors, undefined, JSON.stringify(listed.errors));
      assert.deepEqual(listed.data.group.iterationCadences.nodes, [{ id: `gid://gitlab/Iterations::Cadence/${id}`, title: 'Fortnight' }]);
      assert.deepEqual(listed.data.group.one.nodes, [{ title: 'Fortnight' }]);
      const names: Record<number, string> = { 1: 'upcoming', 2: 'current', 3: 'closed' };
      assert.deepEqual(
        listed.data.group.iterations.nodes,
        restIterations.map((i: any) => ({
          id: `gid://gitlab/Iteration/${i.id}`,
          iid: String(i.iid),
          sequence: i.sequence,
          title: i.title,
          description: i.description,
          state: names[i.state],
          startDate: i.start_date,
          dueDate: i.due_date,
          createdAt: i.created_at,
          updatedAt: i.updated_at,
          webUrl: i.web_url,
          webPath: new URL(i.web_url).pathname,
        })),
      );

      const destroyed = await gql('mutation($id: IterationsCadenceID!) { iterationCadenceDestroy(input: { id: $id }) { errors group { fullPath } } }', { id: payload.iterationCadence.id });
      assert.deepEqual(destroyed.data.iterationCadenceDestroy, { errors: [], group: { fullPath: 'sprints' } });
      assert.equal((await s.api('GET', `/forgelet/groups/${group.id}/iteration_cadences/${id}`)).status, 404);
    });
  });
}
