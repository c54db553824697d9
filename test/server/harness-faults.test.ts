import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { createGroup, createProject, expectStatus } from './http.js';

for (const dialect of DIALECTS) {
  describe(`${dialect}: test harness fault injection`, () => {
    let f: TestForgelet;
    let project: any;

    const addFault = async (body: Record<string, unknown>) => {
      const r = await f.api('POST', '/forgelet/faults', { body });
      expectStatus(r, 201);
      return r.body;
    };
    const statuses = async (method: string, path: string, n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await f.api(method, path, { body: method === 'GET' ? undefined : { title: `t${i}` } })).status);
      return out;
    };

    before(async () => {
      f = await startTestServer(dialect, { testMode: true });
      const group = await createGroup(f, f.rootToken, { name: 'Faulty', path: 'faulty' });
      project = await createProject(f, f.rootToken, { name: 'app', namespace_id: group.id });
    });
    after(() => f.stop());

    it('a 429 for the next N calls, with GitLab rate-limit headers, then normal answers', async () => {
      const fault = await addFault({ method: 'GET', path: '/api/v4/projects/*/issues', status: 429, times: 2, retry_after: 7 });
      assert.deepEqual(fault, {
        id: fault.id, method: 'GET', path: '/api/v4/projects/*/issues', status: 429, latency_ms: 0, times: 2, fraction: 1,
        retry_after: 7, rate_limit: 60, remaining: 2, matched: 0, injected: 0,
      });
      const before = Math.floor(Date.now() / 1000);
      const r = await f.api('GET', `/projects/${project.id}/issues`);
      assert.equal(r.status, 429);
      assert.equal(r.text, 'Retry later\n');
      assert.equal(r.headers.get('content-type'), 'text/plain');
      assert.equal(r.headers.get('retry-after'), '7');
      assert.equal(r.headers.get('ratelimit-name'), 'throttle_authenticated_api');
      assert.equal(r.headers.get('ratelimit-limit'), '60');
      assert.equal(r.headers.get('ratelimit-observed'), '61');
      assert.equal(r.headers.get('ratelimit-remaining'), '0');
      const reset = Number(r.headers.get('ratelimit-reset'));
      assert.ok(reset >= before + 7 && reset <= before + 9, `reset ${reset} vs now ${before}`);
      assert.equal(r.headers.get('ratelimit-resettime'), new Date(reset * 1000).toUTCString());
      assert.match(r.headers.get('ratelimit-resettime')!, /^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/);

      assert.deepEqual(await statuses('GET', `/projects/${project.id}/issues`, 3), [429, 200, 200]);
      // Other methods and paths are not matched.
      expectStatus(await f.api('POST', `/projects/${project.id}/issues`, { body: { title: 'x' } }), 201);
      const listed = await f.api('GET', `/forgelet/faults/${fault.id}`);
      assert.deepEqual([listed.body.remaining, listed.body.matched, listed.body.injected], [0, 2, 2]);
      expectStatus(await f.api('DELETE', '/forgelet/faults'), 204);
    });

    it('a fraction of calls, the same sequence every run; a 5xx with a GitLab error body', async () => {
      await addFault({ path: '/projects/*', status: 503, fraction: 0.5 });
      assert.deepEqual(await statuses('GET', `/projects/${project.id}`, 6), [200, 503, 200, 503, 200, 503]);
      const r = await f.api('GET', `/projects/${project.id}`);
      assert.deepEqual([r.status, r.body], [200, r.body]);
      const failed = await f.api('GET', `/projects/${project.id}`);
      assert.deepEqual([failed.status, failed.body], [503, { message: '503 Service Unavailable' }]);
      expectStatus(await f.api('DELETE', '/forgelet/faults'), 204);

      const quarter = await addFault({ path: '/projects/*', status: 500, fraction: 0.25, times: 1 });
      assert.deepEqual(await statuses('GET', `/projects/${project.id}`, 9), [200, 200, 200, 500, 200, 200, 200, 200, 200]);
      expectStatus(await f.api('DELETE', `/forgelet/faults/${quarter.id}`), 204);
      expectStatus(await f.api('DELETE', `/forgelet/faults/${quarter.id}`), 404);
    });

    it('added latency, alone or before an error; globs: * is one segment, ** anything', async () => {
      await addFault({ method: 'GET', path: '/api/v4/projects/**', latency_ms: 150 });
      let t = performance.now();
      expectStatus(await f.api('GET', `/projects/${project.id}/issues`), 200);
      assert.ok(performance.now() - t >= 145, `slow: ${performance.now() - t} ms`);
      t = performance.now();
      expectStatus(await f.api('GET', '/user'), 200);
      assert.ok(performance.now() - t < 140, 'other paths are fast');
      expectStatus(await f.api('DELETE', '/forgelet/faults'), 204);

      await addFault({ path: '/projects/*', status: 502, latency_ms: 100, times: 1 });
      t = performance.now();
      const r = await f.api('GET', `/projects/${project.id}`);
      assert.deepEqual([r.status, r.body], [502, { message: '502 Bad Gateway' }]);
      assert.ok(performance.now() - t >= 95);
      // `*` does not cross a slash.
      await addFault({ path: '/projects/*', status: 500 });
      expectStatus(await f.api('GET', `/projects/${project.id}/issues`), 200);
      expectStatus(await f.api('GET', `/projects/${project.id}`), 500);
      expectStatus(await f.api('DELETE', '/forgelet/faults'), 204);
    });

    it('the fault routes are never faulted; list and delete', async () => {
      const all = await addFault({ path: '/**', status: 500 });
      const list = await f.api('GET', '/forgelet/faults');
      assert.deepEqual([list.status, list.body.map((x: any) => x.id)], [200, [all.id]]);
      expectStatus(await f.api('GET', '/user'), 500);
      expectStatus(await f.api('DELETE', `/forgelet/faults/${all.id}`), 204);
      expectStatus(await f.api('GET', '/user'), 200);
      assert.deepEqual((await f.api('GET', '/forgelet/faults')).body, []);
    });

    it('bad faults: 400 naming the field', async () => {
      const cases: [Record<string, unknown>, unknown][] = [
        [{ status: 500 }, { error: 'path is missing' }],
        [{ path: 'projects', status: 500 }, { error: 'path must start with /' }],
        [{ path: '/x', status: 200 }, { error: 'status must be from 400 to 599' }],
        [{ path: '/x' }, { error: 'status or latency_ms must be given' }],
        [{ path: '/x', status: 500, fraction: 2 }, { error: 'fraction must be a number greater than 0 and at most 1' }],
        [{ path: '/x', status: 500, fraction: 'half' }, { error: 'fraction must be a number greater than 0 and at most 1' }],
        [{ path: '/x', status: 500, times: 0 }, { error: 'times does not have a valid value' }],
        [{ path: '/x', status: 500, method: 'FETCH' }, { error: 'method must be one of GET, POST, PUT, PATCH, DELETE, HEAD or *' }],
      ];
      for (const [body, expected] of cases) {
        const r = await f.api('POST', '/forgelet/faults', { body });
        assert.deepEqual([r.status, r.body], [400, expected], JSON.stringify(body));
      }
      assert.deepEqual((await f.api('GET', '/forgelet/faults')).body, []);
    });

    it('admin only', async () => {
      const plain = await f.createUser('faultplain');
      for (const [method, path] of [['GET', '/forgelet/faults'], ['POST', '/forgelet/faults'], ['DELETE', '/forgelet/faults'], ['DELETE', '/forgelet/faults/1']] as const) {
        const r = await f.api(method, path, { token: plain.token, body: method === 'POST' ? { path: '/**', status: 500 } : undefined });
        assert.deepEqual([r.status, r.body], [403, { message: '403 Forbidden' }], `${method} ${path}`);
      }
    });
  });

  describe(`${dialect}: --allow-faults without test mode`, () => {
    let f: TestForgelet;
    before(async () => {
      f = await startTestServer(dialect, { testMode: false, allowFaults: true });
    });
    after(() => f.stop());

    it('fault injection works, the rest of the harness does not exist', async () => {
      const r = await f.api('POST', '/forgelet/faults', { body: { path: '/user', status: 429, times: 1 } });
      expectStatus(r, 201);
      expectStatus(await f.api('GET', '/user'), 429);
      expectStatus(await f.api('GET', '/user'), 200);
      const clock = await f.api('GET', '/forgelet/clock');
      assert.deepEqual([clock.status, clock.body], [404, { error: '404 Not Found' }]);
    });
  });
}
