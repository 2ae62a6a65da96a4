import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// Secrets at rest, for whoever keeps one: Shopify access tokens (src/platform/shopify) and webhook
// signing secrets (src/modules/events). In the kernel so both import it without depending on each other.

/**
 * Secrets at rest: AES-256-GCM with a 32-byte key, a fresh 12-byte IV per value, the
 * 16-byte tag checked on open (a changed ciphertext or a wrong key fails, never decrypts to
 * garbage). Stored as `v1:<base64 iv|tag|ciphertext>`.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the secret key must be 32 bytes (AES-256)');
    this.#key = key;
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  open(sealed: string): string {
    if (!sealed.startsWith('v1:')) throw new Error('unknown secret format');
    const raw = Buffer.from(sealed.slice(3), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    try {
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('a stored secret could not be decrypted: BOMCORE_SECRET_KEY is not the key it was stored with');
    }
  }
}

export class SecretKeyError extends Error {}

/** `BOMCORE_SECRET_KEY`: 32 bytes as 64 hex digits or base64. */
export function parseSecretKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new SecretKeyError('BOMCORE_SECRET_KEY must be 32 bytes: 64 hex digits or 44 base64 characters (make one with `openssl rand -hex 32`)');
  return key;
}

/**
 * The key tokens are sealed with: `BOMCORE_SECRET_KEY` when set; else, on the embedded database
 * with a data folder, `secret.key` in that folder, made on first use with mode 0600; else (a
 * PostgreSQL server, or an in-memory database) an error that says to set the variable — a key
 * that lives nowhere would lose every stored token at the next start.
 */
const boxes = new WeakMap<object, SecretBox>();

/** The secret box of a configuration (its key resolved once, on first use). */
export function secretBoxFor(config: { secretKey: string | null; databaseUrl: string | null; dataDir: string }): SecretBox {
  let box = boxes.get(config);
  if (!box) boxes.set(config, (box = new SecretBox(resolveSecretKey(config))));
  return box;
}

export function resolveSecretKey(options: { secretKey: string | null; databaseUrl: string | null; dataDir: string }): Buffer {
  if (options.secretKey) return parseSecretKey(options.secretKey);
  if (options.databaseUrl !== null || options.dataDir.startsWith('memory:')) {
    throw new SecretKeyError('BOMCORE_SECRET_KEY is not set: bomcore stores Shopify access tokens and webhook secrets encrypted with it (make one with `openssl rand -hex 32`)');
  }
  const file = join(options.dataDir, 'secret.key');
  if (existsSync(file)) return parseSecretKey(readFileSync(file, 'utf8'));
  mkdirSync(options.dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}
