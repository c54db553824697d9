/**
 * The instance secret key in core: which columns hold sealed secrets (the rotation's list must
 * name every one), the key ring of the secret box (key ids, secrets sealed before keys had ids,
 * a key source another process rewrites), and the database's record of the sealing key.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv, randomBytes } from 'node:crypto';
import { createForge, createSecretBox, rotateSecrets, SEALED_COLUMNS, secretKeyId, staticKeys, type Forge, type KeySource } from '@forgelet/core';
import { createTestDatabaseUrl, DIALECTS } from '../support/databases.js';

/** A secret as Forgelet sealed it before keys had ids: `v1.<iv>.<tag>.<ciphertext>`. */
function sealV1(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

describe('secret box', () => {
  const a = randomBytes(32);
  const b = randomBytes(32);

  it('seals with the first key, naming it, and opens with any key of the ring', () => {
    const ring = createSecretBox(staticKeys([b, a]));
    const sealed = ring.encrypt('hello');
    assert.match(sealed, new RegExp(`^v2\\.${secretKeyId(b)}\\.`));
    assert.equal(ring.keyIdOf(sealed), secretKeyId(b));
    assert.equal(createSecretBox(a).decrypt(createSecretBox(a).encrypt('x')), 'x');
    assert.equal(ring.decrypt(createSecretBox(a).encrypt('under a')), 'under a');
    assert.deepEqual(ring.keyIds(), [secretKeyId(b), secretKeyId(a)]);
    assert.throws(() => createSecretBox(a).decrypt(sealed), new RegExp(`secret sealed with key ${secretKeyId(b)}, which is not in the given keys`));
  });

  it('opens secrets sealed before keys had ids with whichever key of the ring sealed them', () => {
    const ring = createSecretBox(staticKeys([b, a]));
    assert.equal(ring.keyIdOf(sealV1(a, 'old')), null);
    assert.equal(ring.decrypt(sealV1(a, 'old')), 'old');
    assert.equal(ring.decrypt(sealV1(b, 'newer')), 'newer');
    assert.throws(() => createSecretBox(a).decrypt(sealV1(b, 'x')), /no key in the given keys opens this secret/);
  });

  it('follows a source that changes: seals with its new first key, reads it again for an unknown key id', () => {
    let keys = [a];
    let changed = false;
    let reads = 0;
    const source: KeySource = {
      read: () => {
        reads++;
        changed = false;
        return keys;
      },
      changed: () => changed,
      describe: () => 'a test source',
    };
    const box = createSecretBox(source);
    const before = box.encrypt('x');
    assert.equal(box.keyIdOf(before), secretKeyId(a));
    // Rotated elsewhere: a secret under the new key makes the box read its source again.
    keys = [b, a];
    assert.equal(box.decrypt(createSecretBox(b).encrypt('from another process')), 'from another process');
    assert.equal(reads, 2);
    // The next seal notices a change first.
    keys = [randomBytes(32), b];
    changed = true;
    assert.equal(box.keyIdOf(box.encrypt('y')), secretKeyId(keys[0]!));
    // A key the source dropped opens nothing any more.
    assert.throws(() => box.decrypt(before), new RegExp(`secret sealed with key ${secretKeyId(a)}, which is not in a test source`));
  });
});

for (const dialect of DIALECTS) {
  describe(`${dialect}: sealed columns and the key record`, () => {
    let forge: Forge;
    let url: string;
    let drop: () => Promise<void>;
    const key = randomBytes(32);

    before(async () => {
      ({ url, drop } = await createTestDatabaseUrl(dialect));
      forge = await createForge({ databaseUrl: url, secretKey: key });
    });
    after(async () => {
      await forge.close();
      await drop();
    });

    it('the rotation re-encrypts every column whose name says it holds a sealed secret, and no other', async () => {
      const tables = await forge.deps.db.introspection.getTables();
      const encrypted = tables.flatMap((t) => t.columns.filter((c) => c.name.endsWith('_encrypted')).map((c) => `${t.name}.${c.name}`)).sort();
      assert.deepEqual(SEALED_COLUMNS.map((c) => `${c.table}.${c.column}`).sort(), encrypted);
    });

    it('records the key a new database is sealed with; a start with another key is refused, one with a ring holding it is not', async () => {
      const rows = await forge.deps.db.selectFrom('secret_keys').select(['key_id', 'retired_at']).execute();
      assert.deepEqual(rows, [{ key_id: secretKeyId(key), retired_at: null }]);
      if (dialect === 'sqlite') return; // (an in-memory database is one process's own)
      const other = randomBytes(32);
      await assert.rejects(createForge({ databaseUrl: url, secretKey: other }), {
        name: 'SecretKeyMismatchError',
        message: `the secrets in this database are sealed with the key ${secretKeyId(key)}, which is not in the given keys (keys ${secretKeyId(other)}): every process on one database needs the same secret key (after \`forgelet secret-key rotate\`, the new one)`,
      });
      const staged = await createForge({ databaseUrl: url, secretKeys: staticKeys([other, key]) });
      await staged.close();
    });

    it('rotates in one transaction: a secret no key opens fails it and leaves every secret as it was', async () => {
      const db = forge.deps.db;
      const now = new Date().toISOString();
      const [good] = await db.insertInto('ai_flow_callbacks').values({ name: 'good', url_encrypted: forge.deps.secrets.encrypt('https://a.example'), signing_token_encrypted: null, token_encrypted: null, created_by_id: null, created_at: now }).returning('id').execute();
      const [bad] = await db
        .insertInto('ai_flow_callbacks')
        .values({ name: 'bad', url_encrypted: createSecretBox(randomBytes(32)).encrypt('https://b.example'), signing_token_encrypted: null, token_encrypted: null, created_by_id: null, created_at: now })
        .returning('id')
        .execute();
      const snapshot = () => db.selectFrom('ai_flow_callbacks').select(['id', 'url_encrypted']).orderBy('id').execute();
      const before = await snapshot();
      const next = randomBytes(32);
      await assert.rejects(rotateSecrets(forge.database, createSecretBox(staticKeys([next, key])), { now }), {
        message: new RegExp(`^ai_flow_callbacks\\.url_encrypted of id ${bad!.id}: secret sealed with key [0-9a-f]{12}, which is not in the given keys$`),
      });
      assert.deepEqual(await snapshot(), before);
      await db.deleteFrom('ai_flow_callbacks').where('id', '=', bad!.id).execute();
      const progress: [number, number][] = [];
      const report = await rotateSecrets(forge.database, createSecretBox(staticKeys([next, key])), { now, batchSize: 1, onProgress: (d, t) => progress.push([d, t]) });
      assert.deepEqual([report.key_id, report.retired_key_ids, report.reencrypted], [secretKeyId(next), [secretKeyId(key)], 1]);
      assert.deepEqual(progress, [[0, 1], [1, 1]]);
      const [row] = await db.selectFrom('ai_flow_callbacks').select('url_encrypted').where('id', '=', good!.id).execute();
      assert.equal(createSecretBox(next).decrypt(row!.url_encrypted), 'https://a.example');
      const recorded = await db.selectFrom('secret_keys').select(['key_id', 'retired_at']).execute();
      assert.deepEqual(Object.fromEntries(recorded.map((r) => [r.key_id, r.retired_at === null ? 'current' : 'retired'])), {
        [secretKeyId(key)]: 'retired',
        [secretKeyId(next)]: 'current',
      });
    });
  });
}
