/**
 * The server's router: precedence at one position (static, then a segment with embedded params,
 * then `:param`, then a greedy `*param` that more segments follow, then a trailing `*rest`),
 * segments decoded once after splitting, greedy params longest first, 405 for a path another
 * method has. The routes are the specification's shapes: NuGet's OData keys and the by-ref
 * artifact downloads.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { params, type Method, type Route } from '@forgelet/core';
import { Router } from '@forgelet/server';

const handler = async () => ({ kind: 'empty', status: 204 }) as const;
const r = (method: Method, path: string) => ({ method, path, auth: 'none', params: params({}), handler }) as unknown as Route;

const routes = [
  r('GET', '/projects/:id/packages/nuget/v2/Packages()'),
  r('GET', "/projects/:id/packages/nuget/v2/Packages(Id=':package_name',Version=':package_version')"),
  r('GET', '/projects/:project_id/packages/nuget/v2/FindPackagesById()'),
  r('DELETE', '/projects/:id/packages/nuget/:package_name/:package_version'),
  r('GET', '/projects/:id/jobs/:job_id/artifacts/*artifact_path'),
  r('GET', '/projects/:id/jobs/artifacts/*ref_name/download'),
  r('GET', '/projects/:id/jobs/artifacts/*ref_name/raw/*artifact_path'),
  r('GET', '/projects/:id/repository/files/*file_path'),
];
const router = new Router(routes);

function found(method: Method, path: string): [string, Record<string, string>] {
  const m = router.match(method, path);
  assert.equal(m.kind, 'found', `${method} ${path}: ${m.kind}`);
  return m.kind === 'found' ? [m.route.path, { ...m.params }] : ['', {}];
}

describe('router', () => {
  it('segments with embedded params: the literal text around them, each value decoded', () => {
    assert.deepEqual(found('GET', "/projects/7/packages/nuget/v2/Packages(Id=%27My.Pkg%27,Version=%271.0.0-beta%27)"), [
      "/projects/:id/packages/nuget/v2/Packages(Id=':package_name',Version=':package_version')",
      { id: '7', package_name: 'My.Pkg', package_version: '1.0.0-beta' },
    ]);
    assert.deepEqual(found('GET', '/projects/a%2Fb/packages/nuget/v2/Packages%28%29'), ['/projects/:id/packages/nuget/v2/Packages()', { id: 'a/b' }]);
    assert.deepEqual(found('GET', '/projects/7/packages/nuget/v2/FindPackagesById()'), ['/projects/:project_id/packages/nuget/v2/FindPackagesById()', { project_id: '7' }]);
    // text that only looks like the key is no match: the path is the delete route's, another method
    assert.deepEqual(router.match('GET', "/projects/7/packages/nuget/v2/Packages(Id='x')"), { kind: 'method_not_allowed' });
  });

  it('a greedy param followed by more segments takes one or more segments, longest first', () => {
    assert.deepEqual(found('GET', '/projects/7/jobs/artifacts/feature/x/download'), ['/projects/:id/jobs/artifacts/*ref_name/download', { id: '7', ref_name: 'feature/x' }]);
    assert.deepEqual(found('GET', '/projects/7/jobs/artifacts/feature%2Fx/download'), ['/projects/:id/jobs/artifacts/*ref_name/download', { id: '7', ref_name: 'feature/x' }]);
    assert.deepEqual(found('GET', '/projects/7/jobs/artifacts/main/raw/dist/app.txt'), [
      '/projects/:id/jobs/artifacts/*ref_name/raw/*artifact_path',
      { id: '7', ref_name: 'main', artifact_path: 'dist/app.txt' },
    ]);
    assert.deepEqual(found('GET', '/projects/7/jobs/artifacts/a/raw/b/raw/c.txt')[1], { id: '7', ref_name: 'a/raw/b', artifact_path: 'c.txt' });
    assert.deepEqual(found('GET', '/projects/7/jobs/artifacts/release/raw/x/download')[1], { id: '7', ref_name: 'release/raw/x' });
    assert.deepEqual(router.match('GET', '/projects/7/jobs/artifacts/main'), { kind: 'not_found' });
    assert.deepEqual(router.match('GET', '/projects/7/jobs/artifacts/download'), { kind: 'not_found' }, 'the ref takes at least one segment');
  });

  it('static segments win over params; a trailing *rest still takes the rest of the path', () => {
    assert.deepEqual(found('GET', '/projects/7/jobs/12/artifacts/dist/app.txt'), ['/projects/:id/jobs/:job_id/artifacts/*artifact_path', { id: '7', job_id: '12', artifact_path: 'dist/app.txt' }]);
    assert.deepEqual(found('GET', '/projects/7/repository/files/a%2Fb.txt')[1], { id: '7', file_path: 'a/b.txt' });
    assert.deepEqual(found('DELETE', '/projects/7/packages/nuget/My.Pkg/1.0.0')[1], { id: '7', package_name: 'My.Pkg', package_version: '1.0.0' });
    assert.deepEqual(router.match('POST', '/projects/7/jobs/artifacts/main/download'), { kind: 'method_not_allowed' });
  });
});
