import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** Encrypts secrets at rest (callback URLs and tokens, migration source tokens, CI variables). */
export interface SecretBox {
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
  /** The id of the key new secrets are sealed with. */
  currentKeyId(): string;
  /** Ids of every key that opens secrets, the current one first. */
  keyIds(): string[];
  /** The id of the key `sealed` names; null for secrets sealed before keys had ids. */
  keyIdOf(sealed: string): string | null;
  /** Where the keys come from, for messages (never the keys). */
  describeKeys(): string;
}

/**
 * Where the keys come from: the first key seals, every key opens. A source that can change
 * (a key file another process rewrites) says so cheaply with `changed`, checked before each
 * seal; a sealed secret naming a key the box does not hold makes it read the source again.
 */
export interface KeySource {
  read(): Buffer[];
  changed?(): boolean;
  /** Where the keys come from, for messages (never the keys). */
  describe(): string;
}

/** A fixed list of keys, the first one current. */
export function staticKeys(keys: Buffer[], description = 'the given keys'): KeySource {
  return { read: () => keys, describe: () => description };
}

/**
 * A key's public id: 12 hex digits of a SHA-256 of the key, so every process derives the same
 * id from the same key and ids can be printed, stored and compared; the key cannot be
 * recovered from it.
 */
export function secretKeyId(key: Buffer): string {
  return createHash('sha256').update('forgelet secret key id\0').update(key).digest('hex').slice(0, 12);
}

interface Ring {
  current: { id: string; key: Buffer };
  byId: Map<string, Buffer>;
}

function ringOf(keys: Buffer[], source: KeySource): Ring {
  if (!keys.length) throw new Error(`no secret key in ${source.describe()}`);
  for (const key of keys) if (key.length !== 32) throw new Error(`${source.describe()}: a secret key must be 32 bytes`);
  const byId = new Map(keys.map((key) => [secretKeyId(key), key] as const));
  return { current: { id: secretKeyId(keys[0]!), key: keys[0]! }, byId };
}

function seal(key: Buffer, keyId: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v2', keyId, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

function open(key: Buffer, iv: string, tag: string, ct: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}

/**
 * AES-256-GCM under a key ring. Sealed text is `v2.<key id>.<iv>.<tag>.<ciphertext>` (base64url
 * parts); `v1.<iv>.<tag>.<ciphertext>`, written before keys had ids, is opened by whichever key
 * of the ring authenticates it.
 */
export function createSecretBox(keys: Buffer | KeySource): SecretBox {
  const source = Buffer.isBuffer(keys) ? staticKeys([keys]) : keys;
  let ring = ringOf(source.read(), source);
  const reload = () => {
    ring = ringOf(source.read(), source);
  };
  return {
    encrypt(plain) {
      if (source.changed?.()) reload();
      return seal(ring.current.key, ring.current.id, plain);
    },
    decrypt(sealed) {
      const parts = sealed.split('.');
      if (parts[0] === 'v2' && parts.length === 5) {
        const [, id, iv, tag, ct] = parts as [string, string, string, string, string];
        if (!ring.byId.has(id)) reload(); // rotated by another process since this one read its keys
        const key = ring.byId.get(id);
        if (!key) throw new Error(`secret sealed with key ${id}, which is not in ${source.describe()}`);
        return open(key, iv, tag, ct);
      }
      if (parts[0] === 'v1' && parts.length === 4) {
        const [, iv, tag, ct] = parts as [string, string, string, string];
        for (const key of ring.byId.values()) {
          try {
            return open(key, iv, tag, ct);
          } catch {
            // another key of the ring
          }
        }
        throw new Error(`no key in ${source.describe()} opens this secret`);
      }
      throw new Error('unreadable sealed secret');
    },
    currentKeyId() {
      if (source.changed?.()) reload();
      return ring.current.id;
    },
    keyIds() {
      if (source.changed?.()) reload();
      return [...ring.byId.keys()];
    },
    keyIdOf(sealed) {
      const parts = sealed.split('.');
      return parts[0] === 'v2' && parts.length === 5 ? parts[1]! : null;
    },
    describeKeys: () => source.describe(),
  };
}
