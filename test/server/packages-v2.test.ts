/**
 * The v2 feed (XML): service document, `$metadata`, the OData package entries exactly as the
 * spec describes them, the listing queries NuGet 2.8.7 sends for `nuget list`, and uploads in
 * the multipart framings of the real clients (NuGet 2.8.7's LF-terminated body, NuGet 5.8's
 * quoted boundary and unquoted name, chunked).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { XMLParser } from 'fast-xml-parser';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus, rawRequest } from './http.js';
import { basic, getRaw, nupkg, putPackage, type NuspecOptions } from './packages-fixtures.js';

const XML = 'application/xml; charset=utf-8';
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false, isArray: (name) => name === 'entry' || name === 'Property' || name === 'Schema' });

for (const dialect of DIALECTS) {
  describe(`${dialect}: package feed v2 (XML)`, () => {
    let f: TestForgelet;
    let dev: { id: number; username: string; token: string };
    let outsider: { id: number; username: string; token: string };
    let pub: any;
    let priv: any;
    const files: Record<string, Buffer> = {};

    before(async () => {
      f = await startTestServer(dialect);
      [dev, outsider] = await createUsers(f, ['v2dev', 'v2out']);
      const group = await createGroup(f, f.rootToken, { name: 'V2', path: 'v2g', visibility: 'public' });
      pub = await createProject(f, f.rootToken, { name: 'pub', namespace_id: group.id, visibility: 'public' });
      priv = await createProject(f, f.rootToken, { name: 'priv', namespace_id: group.id, visibility: 'private' });
      await addMember(f, 'groups', group.id, dev.id, 30);
      const auth = { Authorization: basic(dev.username, dev.token) };
      const uploads: [string, string, Partial<NuspecOptions>][] = [
        ['Alpha.Core', '1.0.0', { tags: 'core tools', description: 'Alpha core library' }],
        ['Alpha.Core', '1.1.0', { tags: 'core tools', description: 'Alpha core library' }],
        ['Alpha.Core', '2.0.0-beta', { tags: 'core tools', description: 'Alpha core library' }],
        ['Beta.Util', '0.5.0', { description: 'Utility things', groups: [{ targetFramework: 'net6.0', dependencies: [{ id: 'Alpha.Core', version: '1.0.0' }] }] }],
        ['Gamma', '3.0.0', { description: 'Has nothing to do with it', tags: 'misc' }],
      ];
      for (const [id, version, extra] of uploads) {
        files[`${id}.${version}`] = await nupkg({ id, version, ...extra });
        expectStatus(await putPackage(f, `/projects/${pub.id}/packages/nuget/v2`, files[`${id}.${version}`]!, auth), 201);
      }
      expectStatus(await putPackage(f, `/projects/${priv.id}/packages/nuget`, await nupkg({ id: 'Hidden.Pkg', version: '1.0.0' }), auth), 201);
    });
    after(() => f.stop());

    it('service document: AtomPub, anonymous, xml:base = the v2 URL of the request prefix (project and group)', async () => {
      for (const [path, base] of [
        [`/projects/${priv.id}/packages/nuget/v2`, `${f.url}/api/v4/projects/${priv.id}/packages/nuget/v2`],
        [`/projects/v2g%2Fpriv/packages/pkgfeed/v2/`, `${f.url}/api/v4/projects/v2g%2Fpriv/packages/pkgfeed/v2`],
        [`/groups/v2g/-/packages/nuget/v2`, `${f.url}/api/v4/groups/v2g/-/packages/nuget/v2`],
      ]) {
        const r = await getRaw(f, path!);
        expectStatus(r, 200);
        assert.equal(r.headers.get('content-type'), XML);
        assert.equal(
          r.text,
          `<?xml version="1.0" encoding="UTF-8"?>\n<service xmlns="http://www.w3.org/2007/app" xmlns:atom="http://www.w3.org/2005/Atom" xml:base="${base}">` +
            `<workspace><atom:title type="text">Default</atom:title><collection href="Packages"><atom:title type="text">Packages</atom:title></collection></workspace></service>\n`,
        );
      }
      const missing = await getRaw(f, '/projects/424242/packages/nuget/v2');
      assert.deepEqual([missing.status, missing.json], [404, { message: '404 Project Not Found' }]);
    });

    it('$metadata: EDMX 1.0, V2FeedPackage (key Id+Version, the spec properties), container V2FeedContext with FindPackagesById', async () => {
      for (const path of [`/projects/${priv.id}/packages/nuget/v2/$metadata`, `/groups/v2g/-/packages/pkgfeed/v2/%24metadata`]) {
        const r = await getRaw(f, path);
        expectStatus(r, 200);
        assert.equal(r.headers.get('content-type'), XML);
        const doc = parser.parse(r.text);
        const edmx = doc['edmx:Edmx'];
        assert.equal(edmx['@xmlns:edmx'], 'http://schemas.microsoft.com/ado/2007/06/edmx');
        assert.equal(edmx['@Version'], '1.0');
        const ds = edmx['edmx:DataServices'];
        assert.deepEqual([ds['@xmlns:m'], ds['@m:DataServiceVersion'], ds['@m:MaxDataServiceVersion']], ['http://schemas.microsoft.com/ado/2007/08/dataservices/metadata', '2.0', '2.0']);
        const [types, container] = ds.Schema;
        assert.deepEqual([types['@Namespace'], types['@xmlns'], container['@Namespace']], ['NuGetGallery.OData', 'http://schemas.microsoft.com/ado/2006/04/edm', 'NuGetGallery']);
        const entity = types.EntityType;
        assert.equal(entity['@Name'], 'V2FeedPackage');
        assert.equal(entity['@m:HasStream'], 'true');
        assert.deepEqual(entity.Key.PropertyRef.map((k: any) => k['@Name']), ['Id', 'Version']);
        const props = Object.fromEntries(entity.Property.map((p: any) => [p['@Name'], `${p['@Type']}${p['@Nullable'] === 'false' ? '!' : ''}`]));
        assert.deepEqual(props, {
          Id: 'Edm.String!', Version: 'Edm.String!', Authors: 'Edm.String', Dependencies: 'Edm.String', Description: 'Edm.String', DownloadCount: 'Edm.Int64!',
          IconUrl: 'Edm.String', Published: 'Edm.DateTime!', ProjectUrl: 'Edm.String', Tags: 'Edm.String', Title: 'Edm.String', LicenseUrl: 'Edm.String',
        });
        const c = container.EntityContainer;
        assert.deepEqual([c['@Name'], c['@m:IsDefaultEntityContainer']], ['V2FeedContext', 'true']);
        assert.deepEqual([c.EntitySet['@Name'], c.EntitySet['@EntityType']], ['Packages', 'NuGetGallery.OData.V2FeedPackage']);
        assert.deepEqual(
          [c.FunctionImport['@Name'], c.FunctionImport['@ReturnType'], c.FunctionImport['@EntitySet'], c.FunctionImport.Parameter['@Name'], c.FunctionImport.Parameter['@Type']],
          ['FindPackagesById', 'Collection(NuGetGallery.OData.V2FeedPackage)', 'Packages', 'id', 'Edm.String'],
        );
      }
    });

    it('Packages(Id=…,Version=…): one Atom entry with the version and the download URL, anonymous (also private)', async () => {
      const v2 = `${f.url}/api/v4/projects/${priv.id}/packages/nuget/v2`;
      const r = await getRaw(f, `/projects/${priv.id}/packages/nuget/v2/Packages(Id=%27Hidden.Pkg%27,Version=%271.0.0%27)`);
      expectStatus(r, 200);
      assert.equal(r.headers.get('content-type'), XML);
      assert.equal(
        r.text,
        `<?xml version="1.0" encoding="UTF-8"?>\n<entry xmlns="http://www.w3.org/2005/Atom" xmlns:d="http://schemas.microsoft.com/ado/2007/08/dataservices" ` +
          `xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" xml:base="${v2}">` +
          `<id>${v2}/Packages(Id=&apos;Hidden.Pkg&apos;,Version=&apos;1.0.0&apos;)</id>` +
          `<category term="V2FeedPackage" scheme="http://schemas.microsoft.com/ado/2007/08/dataservices/scheme"/>` +
          `<title type="text">Hidden.Pkg</title>` +
          `<content type="application/zip" src="${f.url}/api/v4/projects/${priv.id}/packages/nuget/download/Hidden.Pkg/1.0.0/hidden.pkg.1.0.0.nupkg"/>` +
          `<m:properties><d:Version>1.0.0</d:Version></m:properties></entry>\n`,
      );
      // the content URL downloads the package (public project, anonymous)
      const entry = await getRaw(f, `/projects/${pub.id}/packages/nuget/v2/Packages(Id='Alpha.Core',Version='1.1.0')`);
      const src = /<content type="application\/zip" src="([^"]+)"/.exec(entry.text)![1]!;
      const dl = await fetch(src);
      assert.equal(dl.status, 200);
      assert.ok(Buffer.from(await dl.arrayBuffer()).equals(files['Alpha.Core.1.1.0']!));
      const bad = await getRaw(f, `/projects/${pub.id}/packages/nuget/v2/Packages(Id='bad name',Version='1.0.0')`);
      assert.deepEqual([bad.status, bad.json], [400, { error: 'package_name is invalid' }]);
      for (const version of ['1e3', 'latest', '1.0.0.0.0', '1.0.0-', '99999999999.0.0']) {
        const badVersion = await getRaw(f, `/projects/${pub.id}/packages/nuget/v2/Packages(Id='Alpha.Core',Version='${version}')`);
        assert.deepEqual([badVersion.status, badVersion.json], [400, { error: 'package_version is invalid' }], version);
      }
      // no such query: the path is the delete route's (`…/nuget/:package_name/:package_version`), as in GitLab
      const unknown = await getRaw(f, `/projects/${pub.id}/packages/nuget/v2/Nothing()`);
      assert.deepEqual([unknown.status, unknown.json], [405, { error: '405 Not Allowed' }]);
      const deeper = await getRaw(f, `/projects/${pub.id}/packages/nuget/v2/Nothing()/more/still`);
      assert.deepEqual([deeper.status, deeper.json], [404, { error: '404 Not Found' }]);
    });

    it('FindPackagesById() and Packages()?$filter=(tolower(Id) eq …) without a token: empty Version, feed root as content', async () => {
      const v2 = `${f.url}/api/v4/projects/${priv.id}/packages/nuget/v2`;
      const expected = (name: string) =>
        `<?xml version="1.0" encoding="UTF-8"?>\n<entry xmlns="http://www.w3.org/2005/Atom" xmlns:d="http://schemas.microsoft.com/ado/2007/08/dataservices" ` +
        `xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" xml:base="${v2}">` +
        `<id>${v2}/Packages(Id=&apos;${name}&apos;,Version=&apos;&apos;)</id>` +
        `<category term="V2FeedPackage" scheme="http://schemas.microsoft.com/ado/2007/08/dataservices/scheme"/>` +
        `<title type="text">${name}</title><content type="application/zip" src="${v2}"/>` +
        `<m:properties><d:Version></d:Version></m:properties></entry>\n`;
      const find = await getRaw(f, `/projects/${priv.id}/packages/nuget/v2/FindPackagesById()?id=%27Hidden.Pkg%27`);
      assert.deepEqual([find.status, find.text], [200, expected('Hidden.Pkg')]);
      const filter = await getRaw(f, `/projects/${priv.id}/packages/nuget/v2/Packages()?$filter=(tolower(Id)%20eq%20%27hidden.pkg%27)`);
      assert.deepEqual([filter.status, filter.text], [200, expected('hidden.pkg')]);
      // with credentials that may read the packages, the newest version is resolved
      const authed = await getRaw(f, `/projects/${pub.id}/packages/nuget/v2/FindPackagesById()?id='alpha.core'`, { Authorization: basic(dev.username, dev.token) });
      assert.match(authed.text, /<d:Version>1\.1\.0<\/d:Version>/);
      assert.match(authed.text, new RegExp(`src="${f.url}/api/v4/projects/${pub.id}/packages/nuget/download/Alpha.Core/1.1.0/alpha.core.1.1.0.nupkg"`));
      const noId = await getRaw(f, `/projects/${priv.id}/packages/nuget/v2/FindPackagesById()`);
      assert.deepEqual([noId.status, noId.json], [400, { error: 'id is missing' }]);
      const missing = await getRaw(f, `/projects/424242/packages/nuget/v2/FindPackagesById()?id='x'`);
      assert.deepEqual([missing.status, missing.json], [404, { message: '404 Project Not Found' }]);
    });

    it('listing queries (nuget list): bare Packages, search filters, IsLatestVersion, $skip/$top paging with a next link', async () => {
      const entries = async (query: string, headers: Record<string, string> = {}) => {
        const r = await getRaw(f, `/projects/${pub.id}/packages/nuget/v2/${query}`, headers);
        expectStatus(r, 200);
        const doc = parser.parse(r.text);
        assert.ok(doc.feed, r.text);
        const list = (doc.feed.entry ?? []).map((e: any) => `${e.title['#text']} ${e['m:properties']['d:Version']}`);
        const next = [doc.feed.link].flat().find((l: any) => l['@rel'] === 'next')?.['@href'] ?? null;
        return { list, next, doc };
      };
      assert.deepEqual((await entries('Packages')).list, ['Alpha.Core 1.0.0', 'Alpha.Core 1.1.0', 'Alpha.Core 2.0.0-beta', 'Beta.Util 0.5.0', 'Gamma 3.0.0']);
      const search =
        "Packages()?$filter=(((Id%20ne%20null)%20and%20substringof('core',tolower(Id)))%20or%20((Description%20ne%20null)%20and%20substringof('core',tolower(Description))))" +
        "%20or%20((Tags%20ne%20null)%20and%20substringof('%20core%20',tolower(Tags)))";
      assert.deepEqual((await entries(`${search}&$orderby=Id&$skip=0&$top=30`)).list, ['Alpha.Core 1.0.0', 'Alpha.Core 1.1.0', 'Alpha.Core 2.0.0-beta']);
      assert.deepEqual((await entries(search.replace(/core/g, 'util'))).list, ['Beta.Util 0.5.0']);
      assert.deepEqual((await entries(search.replace(/core/g, 'nothing'))).list, ['Gamma 3.0.0']);
      assert.deepEqual((await entries(`${search}%20and%20IsLatestVersion`)).list, ['Alpha.Core 1.1.0']);
      assert.deepEqual((await entries('Packages()?$filter=IsAbsoluteLatestVersion')).list, ['Alpha.Core 2.0.0-beta', 'Beta.Util 0.5.0', 'Gamma 3.0.0']);
      // every property a v2 client reads; IsLatestVersion marks the newest stable
      const { doc } = await entries('Packages()?$filter=IsLatestVersion');
      const beta = doc.feed.entry.find((e: any) => e.title['#text'] === 'Beta.Util')['m:properties'];
      assert.equal(beta['d:Id'], 'Beta.Util');
      assert.equal(beta['d:Dependencies'], 'Alpha.Core:1.0.0:net6.0');
      assert.equal(beta['d:IsLatestVersion']['#text'], 'true');
      assert.equal(beta['d:DownloadCount']['#text'], '0');
      // paging
      const first = await entries('Packages()?$top=2');
      assert.deepEqual(first.list, ['Alpha.Core 1.0.0', 'Alpha.Core 1.1.0']);
      assert.ok(first.next);
      const second = await entries(first.next.slice(first.next.indexOf('/v2/') + 4));
      assert.deepEqual(second.list, ['Alpha.Core 2.0.0-beta', 'Beta.Util 0.5.0']);
      const last = await entries('Packages()?$skip=4&$top=2');
      assert.deepEqual([last.list, last.next], [['Gamma 3.0.0'], null]);
      const badTop = await getRaw(f, `/projects/${pub.id}/packages/nuget/v2/Packages()?$top=x`);
      assert.deepEqual([badTop.status, badTop.json], [400, { error: '$top is invalid' }]);
      // a private project's listing needs credentials: 401 + the Basic challenge, then it works
      const anon = await getRaw(f, `/projects/${priv.id}/packages/nuget/v2/Packages()`);
      assert.deepEqual([anon.status, anon.headers.get('www-authenticate')], [401, 'Basic realm="GitLab Packages Registry"']);
      const r = await getRaw(f, `/projects/${priv.id}/packages/nuget/v2/Packages`, { Authorization: basic(dev.username, dev.token) });
      assert.match(r.text, /<title type="text">Hidden\.Pkg<\/title>/);
      const out = await getRaw(f, `/projects/${priv.id}/packages/nuget/v2/Packages`, { Authorization: basic(outsider.username, outsider.token) });
      assert.deepEqual([out.status, out.json], [404, { message: '404 Project Not Found' }]);
    });

    it("uploads in the real clients' framings: NuGet 2.8.7 (LF before the last boundary, no final CRLF) and 5.8 (quoted boundary, unquoted name, chunked)", async () => {
      const file287 = await nupkg({ id: 'Framing.Old', version: '1.0.0' });
      const boundary = '-----------------------------8d0b1f2a3c4d5e6';
      const body287 = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="package"; filename="package"\r\nContent-Type: application/octet-stream\r\n\r\n`),
        file287,
        Buffer.from(`\n--${boundary}--`),
      ]);
      const old = await rawRequest(f.url, 'PUT', `/api/v4/projects/${pub.id}/packages/nuget/v2/`, {
        headers: { 'X-NuGet-ApiKey': dev.token, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
        body: body287,
      });
      assert.deepEqual([old.status, old.body], [201, { message: '201 Created' }]);
      const dl = await getRaw(f, `/projects/${pub.id}/packages/nuget/download/framing.old/1.0.0/framing.old.1.0.0.nupkg`);
      assert.ok(dl.bytes.equals(file287), 'the stored package is exactly the bytes before "\\n--boundary"');

      const file58 = await nupkg({ id: 'Framing.New', version: '1.0.0' });
      const guid = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
      const body58 = Buffer.concat([
        Buffer.from(`--${guid}\r\nContent-Type: application/octet-stream\r\nContent-Disposition: form-data; name=package; filename=package.nupkg; filename*=utf-8''package.nupkg\r\n\r\n`),
        file58,
        Buffer.from(`\r\n--${guid}--\r\n`),
      ]);
      const newer = await rawRequest(f.url, 'PUT', `/api/v4/projects/${pub.id}/packages/nuget/`, {
        headers: { 'X-NuGet-ApiKey': dev.token, 'X-NuGet-Client-Version': '5.8.0', 'Content-Type': `multipart/form-data; boundary="${guid}"` },
        body: body58,
        chunked: true,
      });
      assert.deepEqual([newer.status, newer.body], [201, { message: '201 Created' }]);
      const dl58 = await getRaw(f, `/projects/${pub.id}/packages/nuget/download/Framing.New/1.0.0/framing.new.1.0.0.nupkg`);
      assert.ok(dl58.bytes.equals(file58));
      // gitbeaker's uploadPackageFile: the file in `file`, camelCase name and version fields
      const file = await nupkg({ id: 'Framing.Gitbeaker', version: '2.0.0' });
      const gb = await putPackage(f, `/projects/${pub.id}/packages/nuget`, file, { 'PRIVATE-TOKEN': dev.token }, {
        field: 'file',
        filename: 'framing.gitbeaker.2.0.0.nupkg',
        fields: { packageName: 'Framing.Gitbeaker', packageVersion: '2.0.0' },
      });
      assert.deepEqual([gb.status, gb.body], [201, { message: '201 Created' }]);
    });
  });
}
