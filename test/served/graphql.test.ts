/**
 * GitLab's GraphQL endpoint on the served binary: authentication as REST takes it, GitLab's
 * error shape with partial data, depth and complexity limits, introspection loadable by
 * graphql-js's buildClientSchema, connections paginated in the database, and the fields of
 * `currentUser`, `project` and `group` equal to the REST answers for the same records.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildClientSchema, getIntrospectionQuery, printSchema } from 'graphql';
import { DIALECTS } from '../support/databases.js';
import { startServed, type ServedForgelet } from '../support/served.js';

interface GqlAnswer {
  status: number;
  body: any;
}

for (const dialect of DIALECTS) {
  describe(`${dialect}: GraphQL at /api/graphql`, () => {
    let s: ServedForgelet;
    let alice: { id: number; username: string; token: string };
    let readOnly: { token: string };
    let group: any;
    let privateProject: any;
    let publicProjects: any[];

    const gql = async (query: string, options: { variables?: unknown; token?: string | null; headers?: Record<string, string>; operationName?: string } = {}): Promise<GqlAnswer> => {
      const r = await s.api('POST', `${s.url}/api/graphql`, {
        token: options.token === undefined ? alice.token : options.token,
        headers: options.headers,
        body: { query, variables: options.variables, operationName: options.operationName },
      });
      return { status: r.status, body: r.body };
    };

    before(async () => {
      s = await startServed(dialect);
      alice = await s.createUser('gql-alice');
      readOnly = await s.createUser('gql-reader', { scopes: ['read_api'] });
      group = (await s.api('POST', '/groups', { token: alice.token, body: { name: 'GQL Group', path: 'gql-group', visibility: 'public', description: 'graphs' } })).body;
      publicProjects = [];
      for (let i = 0; i < 5; i++) {
        const r = await s.api('POST', '/projects', { token: alice.token, body: { name: `pub-${i}`, namespace_id: group.id, visibility: 'public', topics: ['t'] } });
        assert.equal(r.status, 201, r.text);
        publicProjects.push(r.body);
      }
      privateProject = (await s.api('POST', '/projects', { token: alice.token, body: { name: 'secret', namespace_id: group.id, visibility: 'private' } })).body;
    });
    after(async () => {
      await s?.stop();
    });

    it('authenticates with PRIVATE-TOKEN and Bearer; anonymous sees public data only; a bad token is 401', async () => {
      const me = await gql('{ currentUser { id username } }');
      assert.equal(me.status, 200);
      assert.deepEqual(me.body, { data: { currentUser: { id: `gid://gitlab/User/${alice.id}`, username: 'gql-alice' } } });
      const bearer = await gql('{ currentUser { username } }', { token: null, headers: { Authorization: `Bearer ${alice.token}` } });
      assert.deepEqual(bearer.body.data.currentUser, { username: 'gql-alice' });
      const anon = await gql(`{ currentUser { username } pub: project(fullPath: "gql-group/pub-0") { name } secret: project(fullPath: "${privateProject.path_with_namespace}") { name } }`, { token: null });
      assert.deepEqual(anon.body, { data: { currentUser: null, pub: { name: 'pub-0' }, secret: null } });
      const member = await gql(`{ project(fullPath: "${privateProject.path_with_namespace}") { name visibility } }`);
      assert.deepEqual(member.body.data.project, { name: 'secret', visibility: 'private' });
      const bad = await gql('{ currentUser { username } }', { token: 'glpat-not-a-token' });
      assert.equal(bad.status, 401);
      assert.deepEqual(bad.body, { errors: [{ message: 'Invalid token' }] });
      // GET takes query and variables in the query string; a mutation over GET is refused.
      const q = encodeURIComponent('query($p: ID!) { project(fullPath: $p) { name } }');
      const get = await s.api('GET', `${s.url}/api/graphql?query=${q}&variables=${encodeURIComponent(JSON.stringify({ p: 'gql-group/pub-1' }))}`, { token: alice.token });
      assert.deepEqual(get.body, { data: { project: { name: 'pub-1' } } });
      const getMutation = await s.api('GET', `${s.url}/api/graphql?query=${encodeURIComponent('mutation { x }')}`, { token: alice.token });
      assert.equal(getMutation.status, 422);
      assert.deepEqual(getMutation.body, { errors: [{ message: 'Mutations are forbidden in GET requests' }] });
    });

    it('answers errors in GitLab shape, with partial data', async () => {
      const syntax = await gql('{ currentUser { ');
      assert.equal(syntax.status, 200);
      assert.match(syntax.body.errors[0].message, /Syntax Error/);
      assert.deepEqual(syntax.body.errors[0].locations, [{ line: 1, column: 17 }]);
      const unknown = await gql('{ currentUser { nope } }');
      assert.match(unknown.body.errors[0].message, /^Cannot query field "nope" on type "CurrentUser"\./);
      assert.deepEqual(unknown.body.errors[0].locations, [{ line: 1, column: 17 }]);
      assert.equal(unknown.body.data, undefined);
      // A bad cursor fails its field only: the rest of the answer stands, the error names its path.
      const partial = await gql('{ currentUser { username } group(fullPath: "gql-group") { name projects(after: "bad") { nodes { name } } } }');
      assert.equal(partial.status, 200);
      assert.deepEqual(partial.body.data, { currentUser: { username: 'gql-alice' }, group: { name: 'GQL Group', projects: null } });
      assert.deepEqual(partial.body.errors, [{ message: 'Please provide a valid cursor', locations: [{ line: 1, column: 64 }], path: ['group', 'projects'] }]);
      const tooLarge = await gql(`{ currentUser { username } } # ${'x'.repeat(10_000)}`);
      assert.equal(tooLarge.status, 422);
      assert.deepEqual(tooLarge.body, { errors: [{ message: 'Query too large' }] });
    });

    it('enforces GitLab depth (15 anonymous, 20 signed in) and complexity (200, 250, 300) limits', async () => {
      // group > parent > parent ... : each level one deeper.
      const nested = (levels: number) => `{ group(fullPath: "gql-group") { ${'parent { '.repeat(levels)}name${' }'.repeat(levels)} } }`;
      // depth = group(1) + levels + name(1)
      const anonOk = await gql(nested(13), { token: null });
      assert.equal(anonOk.body.errors, undefined, JSON.stringify(anonOk.body));
      const anonDeep = await gql(nested(14), { token: null });
      assert.deepEqual(anonDeep.body, { errors: [{ message: 'Query has depth of 16, which exceeds max depth of 15' }] });
      const userOk = await gql(nested(18));
      assert.equal(userOk.body.errors, undefined);
      const userDeep = await gql(nested(19));
      assert.deepEqual(userDeep.body, { errors: [{ message: 'Query has depth of 21, which exceeds max depth of 20' }] });
      // Aliased leaves: each costs 1, plus 1 for group.
      const wide = (n: number) => `{ group(fullPath: "gql-group") { ${Array.from({ length: n }, (_, i) => `a${i}: name`).join(' ')} } }`;
      assert.equal((await gql(wide(199), { token: null })).body.errors, undefined);
      assert.deepEqual((await gql(wide(200), { token: null })).body, { errors: [{ message: 'Query has complexity of 201, which exceeds max complexity of 200' }] });
      assert.equal((await gql(wide(249))).body.errors, undefined);
      assert.deepEqual((await gql(wide(250))).body, { errors: [{ message: 'Query has complexity of 251, which exceeds max complexity of 250' }] });
      assert.equal((await gql(wide(299), { token: s.rootToken })).body.errors, undefined);
      assert.deepEqual((await gql(wide(300), { token: s.rootToken })).body, { errors: [{ message: 'Query has complexity of 301, which exceeds max complexity of 300' }] });
      // A connection costs 1% more per item it may load: projects { nodes { name } } = (1 + 2) * (1 + first/100).
      const conns = (n: number, first: number) => `{ group(fullPath: "gql-group") { ${Array.from({ length: n }, (_, i) => `p${i}: projects(first: ${first}) { nodes { name } }`).join(' ')} } }`;
      assert.equal((await gql(conns(41, 100))).body.errors, undefined);
      assert.deepEqual((await gql(conns(42, 100))).body, { errors: [{ message: 'Query has complexity of 253, which exceeds max complexity of 250' }] });
      assert.equal((await gql(conns(42, 10))).body.errors, undefined);
    });

    it('serves introspection that buildClientSchema loads, anonymously too', async () => {
      const r = await gql(getIntrospectionQuery(), { token: null, operationName: 'IntrospectionQuery' });
      assert.equal(r.status, 200);
      assert.equal(r.body.errors, undefined, JSON.stringify(r.body.errors));
      const schema = buildClientSchema(r.body.data);
      const printed = printSchema(schema);
      for (const type of ['Project', 'Group', 'CurrentUser', 'UserCore', 'PageInfo', 'ProjectConnection', 'ProjectEdge']) assert.ok(schema.getType(type), type);
      assert.match(printed, /project\(\s*"""[^"]*"""\s*fullPath: ID!\s*\): Project/);
      assert.deepEqual(Object.keys((schema.getType('PageInfo') as any).getFields()).sort(), ['endCursor', 'hasNextPage', 'hasPreviousPage', 'startCursor']);
    });

    it('serves the explorer page at /-/graphql-explorer, self-contained (no outside URL)', async () => {
      const r = await fetch(`${s.url}/-/graphql-explorer`);
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(r.headers.get('content-security-policy') ?? '', /connect-src 'self'/);
      const html = await r.text();
      assert.match(html, /fetch\('\/api\/graphql'/);
      assert.doesNotMatch(html, /https?:\/\//, 'no outside URL (CDN, fonts)');
      assert.doesNotMatch(html, /<script[^>]+src=/, 'no script loaded from elsewhere');
    });

    it('paginates connections in the database: first/after, last/before, the page size cap', async () => {
      const page = async (args: string) =>
        (await gql(`{ group(fullPath: "gql-group") { projects(${args}) { count nodes { name } edges { cursor node { name } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`, { token: null })).body.data.group.projects;
      // REST order of the same list (anonymous sees the 5 public projects).
      const rest = (await s.api('GET', `/groups/${group.id}/projects?per_page=100`, { token: null })).body.map((p: any) => p.name);
      assert.equal(rest.length, 5);
      const all = await page('first: 100');
      assert.deepEqual(all.nodes.map((n: any) => n.name), rest);
      assert.equal(all.count, 5);
      const one = await page('first: 2');
      assert.deepEqual(one.nodes.map((n: any) => n.name), rest.slice(0, 2));
      assert.deepEqual(one.edges.map((e: any) => e.node.name), rest.slice(0, 2));
      assert.deepEqual({ next: one.pageInfo.hasNextPage, prev: one.pageInfo.hasPreviousPage }, { next: true, prev: false });
      assert.equal(one.pageInfo.endCursor, one.edges[1].cursor);
      const two = await page(`first: 2, after: "${one.pageInfo.endCursor}"`);
      assert.deepEqual(two.nodes.map((n: any) => n.name), rest.slice(2, 4));
      assert.deepEqual({ next: two.pageInfo.hasNextPage, prev: two.pageInfo.hasPreviousPage }, { next: true, prev: true });
      const three = await page(`first: 2, after: "${two.pageInfo.endCursor}"`);
      assert.deepEqual(three.nodes.map((n: any) => n.name), rest.slice(4));
      assert.equal(three.pageInfo.hasNextPage, false);
      const last = await page('last: 2');
      assert.deepEqual(last.nodes.map((n: any) => n.name), rest.slice(3));
      assert.deepEqual({ next: last.pageInfo.hasNextPage, prev: last.pageInfo.hasPreviousPage }, { next: false, prev: true });
      const before = await page(`last: 2, before: "${last.pageInfo.startCursor}"`);
      assert.deepEqual(before.nodes.map((n: any) => n.name), rest.slice(1, 3));
      // Over the maximum page size (100): capped, not refused.
      const capped = await page('first: 500');
      assert.equal(capped.nodes.length, 5);
      // The served binary logs no GraphQL resolver error.
      assert.doesNotMatch(s.stderr(), /GraphQL resolver error/);
    });

    it('read_api tokens query but do not mutate', async () => {
      const q = await gql('{ currentUser { username } }', { token: readOnly.token });
      assert.equal(q.body.data.currentUser.username, 'gql-reader');
      const m = await gql('mutation { __typename }', { token: readOnly.token });
      assert.deepEqual(m.body, { errors: [{ message: "The resource that you are attempting to access does not exist or you don't have permission to perform this action" }], data: null });
    });

    it('every field of currentUser, project and group equals the REST answer for the same record', async () => {
      const me = (await gql('{ currentUser { id username name state webUrl webPath avatarUrl publicEmail bot location bio jobTitle organization createdAt lastActivityOn } }')).body.data.currentUser;
      const restMe = (await s.api('GET', '/user', { token: alice.token })).body;
      assert.deepEqual(me, {
        id: `gid://gitlab/User/${restMe.id}`,
        username: restMe.username,
        name: restMe.name,
        state: restMe.state,
        webUrl: restMe.web_url,
        webPath: `/${restMe.username}`,
        avatarUrl: restMe.avatar_url,
        publicEmail: restMe.public_email,
        bot: restMe.bot,
        location: restMe.location,
        bio: restMe.bio,
        jobTitle: restMe.job_title,
        organization: restMe.organization,
        createdAt: restMe.created_at,
        lastActivityOn: restMe.last_activity_on,
      });
      const p = publicProjects[0];
      const restP = (await s.api('GET', `/projects/${p.id}`, { token: alice.token })).body;
      const gp = (await gql(`{ project(fullPath: "${p.path_with_namespace}") { id name path fullPath nameWithNamespace description visibility archived webUrl httpUrlToRepo sshUrlToRepo avatarUrl createdAt lastActivityAt starCount forksCount openIssuesCount topics issuesEnabled mergeRequestsEnabled jobsEnabled wikiEnabled snippetsEnabled namespace { id name path fullName fullPath webUrl } group { id fullPath } } }`)).body.data.project;
      assert.deepEqual(gp, {
        id: `gid://gitlab/Project/${restP.id}`,
        name: restP.name,
        path: restP.path,
        fullPath: restP.path_with_namespace,
        nameWithNamespace: restP.name_with_namespace,
        description: restP.description,
        visibility: restP.visibility,
        archived: restP.archived,
        webUrl: restP.web_url,
        httpUrlToRepo: restP.http_url_to_repo,
        sshUrlToRepo: restP.ssh_url_to_repo,
        avatarUrl: restP.avatar_url,
        createdAt: restP.created_at,
        lastActivityAt: restP.last_activity_at,
        starCount: restP.star_count,
        forksCount: restP.forks_count,
        openIssuesCount: restP.open_issues_count,
        topics: restP.topics,
        issuesEnabled: restP.issues_enabled,
        mergeRequestsEnabled: restP.merge_requests_enabled,
        jobsEnabled: restP.jobs_enabled,
        wikiEnabled: restP.wiki_enabled,
        snippetsEnabled: restP.snippets_enabled,
        namespace: {
          id: `gid://gitlab/Namespace/${restP.namespace.id}`,
          name: restP.namespace.name,
          path: restP.namespace.path,
          fullName: restP.namespace.name,
          fullPath: restP.namespace.full_path,
          webUrl: restP.namespace.web_url,
        },
        group: { id: `gid://gitlab/Group/${group.id}`, fullPath: 'gql-group' },
      });
      const restG = (await s.api('GET', `/groups/${group.id}`, { token: alice.token })).body;
      const gg = (await gql('{ group(fullPath: "gql-group") { id name path fullName fullPath description visibility webUrl avatarUrl createdAt lfsEnabled requestAccessEnabled shareWithGroupLock requireTwoFactorAuthentication twoFactorGracePeriod projectCreationLevel subgroupCreationLevel autoDevopsEnabled emailsDisabled mentionsDisabled parent { id } } }')).body.data.group;
      assert.deepEqual(gg, {
        id: `gid://gitlab/Group/${restG.id}`,
        name: restG.name,
        path: restG.path,
        fullName: restG.full_name,
        fullPath: restG.full_path,
        description: restG.description,
        visibility: restG.visibility,
        webUrl: restG.web_url,
        avatarUrl: restG.avatar_url,
        createdAt: restG.created_at,
        lfsEnabled: restG.lfs_enabled,
        requestAccessEnabled: restG.request_access_enabled,
        shareWithGroupLock: restG.share_with_group_lock,
        requireTwoFactorAuthentication: restG.require_two_factor_authentication,
        twoFactorGracePeriod: restG.two_factor_grace_period,
        projectCreationLevel: restG.project_creation_level,
        subgroupCreationLevel: restG.subgroup_creation_level,
        autoDevopsEnabled: restG.auto_devops_enabled,
        emailsDisabled: restG.emails_disabled,
        mentionsDisabled: restG.mentions_disabled,
        parent: null,
      });
    });
  });
}
