/**
 * Symbol packages (`.snupkg`, the spec's `.spkg`) and the symbol server: upload to
 * `…/symbolpackage`, portable PDBs indexed by file name and signature with GitLab's
 * checksum, `symbolfiles/:file/:signature/:file` with the `Symbolchecksum` header.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DIALECTS } from '../support/databases.js';
import { startTestServer, type TestForgelet } from '../support/server.js';
import { addMember, createGroup, createProject, createUsers, expectStatus } from './http.js';
import { basic, expectedChecksum, expectedSignature, getRaw, nupkg, portablePdb, putPackage, snupkg, zip } from './packages-fixtures.js';

const GUID_A = Buffer.from('4b2a6f10c3d94e5f8a7b6c5d4e3f2a1b', 'hex');
const GUID_B = Buffer.from('00ff11ee22dd33cc44bb55aa66997788', 'hex');

for (const dialect of DIALECTS) {
  describe(`${dialect}: symbol packages and the symbol server`, () => {
    let f: TestForgelet;
    let maintainer: { id: number; username: string; token: string };
    let group: any;
    let project: any;
    let other: any;
    let auth: Record<string, string>;
    // a PDB larger than GitLab's 16 KB first chunk, and a small one
    const big = portablePdb(GUID_A, Buffer.from([0xde, 0xad, 0xbe, 0xef]), 40_000, 3);
    const small = portablePdb(GUID_B, Buffer.from([1, 0, 0, 0]), 600, 5);
    let spkg: Buffer;
    const P = () => `/projects/${project.id}/packages/nuget`;
    const symbolPath = (name: string, signature: string, prefix = P()) => `${prefix}/symbolfiles/${name}/${signature}/${name}`;

    before(async () => {
      f = await startTestServer(dialect);
      [maintainer] = await createUsers(f, ['symmaint']);
      group = await createGroup(f, f.rootToken, { name: 'Sym', path: 'sym', visibility: 'private' });
      project = await createProject(f, f.rootToken, { name: 'lib', namespace_id: group.id, visibility: 'private' });
      other = await createProject(f, f.rootToken, { name: 'other', namespace_id: group.id, visibility: 'private' });
      await addMember(f, 'groups', group.id, maintainer.id, 40);
      auth = { Authorization: basic(maintainer.username, maintainer.token) };
      expectStatus(await putPackage(f, P(), await nupkg({ id: 'Sym.Lib', version: '1.0.0' }), auth), 201);
      spkg = await snupkg({ id: 'Sym.Lib', version: '1.0.0' }, {
        'lib/net6.0/Sym.Lib.pdb': big,
        'lib/netstandard2.0/Sym.Helpers.pdb': small,
        // a Windows PDB (no portable PDB id): skipped, as GitLab does
        'lib/net48/Legacy.pdb': Buffer.from('Microsoft C/C++ MSF 7.00\r\n\x1aDS\0\0\0'.padEnd(400, '\0'), 'latin1'),
      });
    });
    after(() => f.stop());

    it('GitLab signature and checksum: GUID fields byte-reversed + FFFFFFFF; SHA-256 with the id zeroed', () => {
      assert.equal(expectedSignature(GUID_A), '106f2a4bd9c35f4e8a7b6c5d4e3f2a1bFFFFFFFF');
      assert.notEqual(expectedChecksum(big), expectedChecksum(Buffer.concat([big.subarray(0, 100), Buffer.from([1]), big.subarray(101)])));
    });

    it('upload needs the package version to exist; then indexes the portable PDBs', async () => {
      const orphan = await putPackage(f, `${P()}/symbolpackage`, await snupkg({ id: 'Sym.Lib', version: '9.0.0' }, { 'a.pdb': small }), auth);
      assert.deepEqual([orphan.status, orphan.body], [404, { message: '404 Package Not Found' }]);
      const notZip = await putPackage(f, `${P()}/symbolpackage`, Buffer.from('nope'), auth);
      expectStatus(notZip, 400);
      const anon = await putPackage(f, `${P()}/symbolpackage`, spkg, {});
      expectStatus(anon, 401);
      const r = await putPackage(f, `${P()}/symbolpackage/`, spkg, auth, { filename: 'package.snupkg' });
      assert.deepEqual([r.status, r.body], [201, { message: '201 Created' }]);
      const rows = await f.forge.database.db
        .selectFrom('package_symbols')
        .select(['file_name', 'file_path', 'signature', 'file_sha256', 'size'])
        .orderBy('file_name')
        .execute();
      assert.deepEqual(
        rows.map((r) => ({ ...r, size: Number(r.size) })),
        [
          { file_name: 'sym.helpers.pdb', file_path: 'lib/netstandard2.0/Sym.Helpers.pdb', signature: expectedSignature(GUID_B), file_sha256: expectedChecksum(small), size: small.length },
          { file_name: 'sym.lib.pdb', file_path: 'lib/net6.0/Sym.Lib.pdb', signature: expectedSignature(GUID_A), file_sha256: expectedChecksum(big), size: big.length },
        ],
      );
      // the symbol package itself downloads as .snupkg (and the spec's .spkg)
      const dl = await getRaw(f, `${P()}/download/sym.lib/1.0.0/sym.lib.1.0.0.snupkg`, auth);
      assert.ok(dl.bytes.equals(spkg));
      expectStatus(await getRaw(f, `${P()}/download/sym.lib/1.0.0/sym.lib.1.0.0.spkg`, auth), 200);
    });

    it('symbol file download: right checksum 200 (anonymous, any casing, one of several checksums); wrong 404; none 400', async () => {
      const sig = expectedSignature(GUID_A);
      const right = `SHA256:${expectedChecksum(big)}`;
      const ok = await getRaw(f, symbolPath('sym.lib.pdb', sig), { Symbolchecksum: right });
      expectStatus(ok, 200);
      assert.equal(ok.headers.get('content-type'), 'application/octet-stream');
      assert.equal(ok.headers.get('content-length'), String(big.length));
      assert.ok(ok.bytes.equals(big));
      const cased = await getRaw(f, symbolPath('Sym.Lib.PDB', sig.toLowerCase()), { SymbolChecksum: right.toUpperCase().replace('SHA256:', 'sha256:') });
      assert.ok(cased.bytes.equals(big));
      const several = await getRaw(f, symbolPath('sym.helpers.pdb', expectedSignature(GUID_B)), {
        Symbolchecksum: `SHA256:${'0'.repeat(64)};SHA256:${expectedChecksum(small)}`,
      });
      assert.ok(several.bytes.equals(small));
      // group level
      const viaGroup = await getRaw(f, symbolPath('sym.lib.pdb', sig, '/groups/sym/-/packages/pkgfeed'), { Symbolchecksum: right });
      assert.ok(viaGroup.bytes.equals(big));

      const wrong = await getRaw(f, symbolPath('sym.lib.pdb', sig), { Symbolchecksum: `SHA256:${expectedChecksum(small)}` });
      assert.deepEqual([wrong.status, wrong.json], [404, { message: '404 Symbol Not Found' }]);
      const otherFile = await getRaw(f, symbolPath('sym.helpers.pdb', sig), { Symbolchecksum: right });
      assert.deepEqual([otherFile.status, otherFile.json], [404, { message: '404 Symbol Not Found' }]);
      const garbage = await getRaw(f, symbolPath('sym.lib.pdb', sig), { Symbolchecksum: 'MD5:abc' });
      expectStatus(garbage, 404);
      const missing = await getRaw(f, symbolPath('sym.lib.pdb', sig));
      assert.deepEqual([missing.status, missing.json], [400, { message: '400 Bad request - Missing checksum header' }]);
      const otherProject = await getRaw(f, symbolPath('sym.lib.pdb', sig, `/projects/${other.id}/packages/nuget`), { Symbolchecksum: right });
      expectStatus(otherProject, 404);
      const noProject = await getRaw(f, symbolPath('sym.lib.pdb', sig, '/projects/424242/packages/nuget'), { Symbolchecksum: right });
      assert.deepEqual([noProject.status, noProject.json], [404, { message: '404 Project Not Found' }]);
    });

    it('symbol server switched off in the group settings: 403; more than 100 PDBs: 400; deleting the package removes its symbols', async () => {
      const sig = expectedSignature(GUID_A);
      const right = { Symbolchecksum: `SHA256:${expectedChecksum(big)}` };
      expectStatus(await f.api('PUT', `/forgelet/groups/${group.id}/package_settings`, { token: maintainer.token, body: { nuget_symbol_server_enabled: false } }), 200);
      const off = await getRaw(f, symbolPath('sym.lib.pdb', sig), right);
      assert.deepEqual([off.status, off.json], [403, { message: '403 Forbidden' }]);
      expectStatus(await f.api('PUT', `/forgelet/groups/${group.id}/package_settings`, { token: maintainer.token, body: { nuget_symbol_server_enabled: true } }), 200);
      expectStatus(await getRaw(f, symbolPath('sym.lib.pdb', sig), right), 200);

      const many: Record<string, Buffer> = {};
      for (let i = 0; i < 101; i++) many[`lib/p${i}.pdb`] = small;
      const tooMany = await putPackage(f, `${P()}/symbolpackage`, await snupkg({ id: 'Sym.Lib', version: '1.0.0' }, many), auth);
      assert.deepEqual([tooMany.status, tooMany.body], [400, { message: 'too many symbol files (the limit is 100)' }]);
      const bare = await putPackage(f, `${P()}/symbolpackage`, await zip({ 'x.pdb': small }), auth);
      assert.deepEqual([bare.status, bare.body], [400, { message: 'nuspec file not found' }]);

      expectStatus(await f.api('DELETE', `${P()}/Sym.Lib/1.0.0`, { token: null, headers: auth }), 204);
      expectStatus(await getRaw(f, symbolPath('sym.lib.pdb', sig), right), 404);
      const left = await f.forge.database.db.selectFrom('package_symbols').select('id').execute();
      assert.deepEqual(left, []);
    });
  });
}
