import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Encrypts secrets at rest (callback URLs and tokens, migration source tokens). */
export interface SecretBox {
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
}

/** AES-256-GCM; sealed text is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('secret key must be 32 bytes');
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
    },
    decrypt(sealed) {
      const [v, iv, tag, ct] = sealed.split('.');
      if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unreadable sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
