import type { CreatedKey } from '../modules/auth/keys.ts';
import { answerBody, onRunningServer, type AdminRequest } from './admin-client.ts';
import { parse, requiredString, UsageError } from './args.ts';

/** A key as `key list` shows it (the secret is never kept). */
interface ListedKey { id: string; name: string | null; scopes: string[]; createdAt: string; expiresAt: string | null; revokedAt: string | null }

export async function keyCommand(args: string[]): Promise<void> {
  const [action, ...rest] = args;
  switch (action) {
    case 'create': return createKey(rest);
    case 'list': return listKeys(rest);
    case 'revoke': return revokeKey(rest);
    default: throw new UsageError('use: bomcore key create|list|revoke');
  }
}

/**
 * Runs a key command where the database is: on the running `bomcore serve` when it holds the
 * embedded database (so its keys change at once, without a restart), otherwise on a database this
 * process opens. Both parse and check the arguments with the same functions of keys.ts.
 */
async function run<T>(command: AdminRequest, local: (keys: typeof import('../modules/auth/keys.ts'), em: import('../db/orm.ts').Em) => Promise<T>): Promise<T> {
  const { loadConfig } = await import('../kernel/config.ts');
  return onRunningServer(loadConfig(), command, (answer) => JSON.parse(answerBody(answer).toString('utf8')) as T, async () => {
    const [keys, { withDatabase }] = await Promise.all([import('../modules/auth/keys.ts'), import('./database.ts')]);
    return withDatabase((orm) => local(keys, orm.em.fork()));
  });
}

async function createKey(args: string[]): Promise<void> {
  const { values } = parse(args, {
    shop: { type: 'string' }, scopes: { type: 'string' }, name: { type: 'string' }, 'expires-in': { type: 'string' }, json: { type: 'boolean' },
  });
  const input = { shopId: requiredString(values.shop, '--shop'), scopes: requiredString(values.scopes, '--scopes'), name: values.name ?? null, expiresIn: values['expires-in'] ?? null };
  const created = await run<CreatedKey>({ method: 'POST', path: '/keys', body: input }, (keys, em) => keys.createApiKey(em, {
    shopId: input.shopId, scopes: keys.parseScopes(input.scopes), name: input.name, expiresInMs: input.expiresIn ? keys.parseDuration(input.expiresIn) : null,
  }));
  if (values.json) {
    console.log(JSON.stringify({ id: created.id, key: created.key, shopId: created.shopId, scopes: created.scopes }));
    return;
  }
  console.log(`API key ${created.id} for shop ${created.shopId} (scopes: ${created.scopes.join(',')}${created.expiresAt ? `, expires ${created.expiresAt}` : ''})`);
  console.log(`\n  ${created.key}\n`);
  console.log('It is shown only now: bomcore keeps a hash, not the key. It works at once, on a running server too.');
}

async function listKeys(args: string[]): Promise<void> {
  const { values } = parse(args, { shop: { type: 'string' }, json: { type: 'boolean' } });
  const shopId = requiredString(values.shop, '--shop');
  const keys = await run<ListedKey[]>({ method: 'GET', path: `/keys?shop=${encodeURIComponent(shopId)}` }, (k, em) => k.listApiKeys(em, shopId));
  if (values.json) {
    console.log(JSON.stringify(keys));
    return;
  }
  if (keys.length === 0) console.log(`no API keys for shop ${shopId}`);
  for (const k of keys) {
    const state = k.revokedAt ? `revoked ${k.revokedAt}` : k.expiresAt ? `expires ${k.expiresAt}` : 'no expiry';
    console.log(`${k.id}\t${k.scopes.join(',')}\t${state}\t${k.name ?? ''}`);
  }
}

async function revokeKey(args: string[]): Promise<void> {
  const { positionals } = parse(args, {}, 1);
  const id = positionals[0];
  if (!id) throw new UsageError('use: bomcore key revoke ID');
  await run({ method: 'POST', path: `/keys/${encodeURIComponent(id)}/revoke` }, (keys, em) => keys.revokeApiKey(em, id));
  console.log(`revoked ${id}`);
}
