import { createApiKey, listApiKeys, parseDuration, parseScopes, revokeApiKey } from '../modules/auth/keys.ts';
import { parse, requiredString, UsageError } from './args.ts';
import { withDatabase } from './database.ts';

export async function keyCommand(args: string[]): Promise<void> {
  const [action, ...rest] = args;
  switch (action) {
    case 'create': return createKey(rest);
    case 'list': return listKeys(rest);
    case 'revoke': return revokeKey(rest);
    default: throw new UsageError('use: bomcore key create|list|revoke');
  }
}

async function createKey(args: string[]): Promise<void> {
  const { values } = parse(args, {
    shop: { type: 'string' }, scopes: { type: 'string' }, name: { type: 'string' }, 'expires-in': { type: 'string' }, json: { type: 'boolean' },
  });
  const shopId = requiredString(values.shop, '--shop');
  const scopes = parseScopes(requiredString(values.scopes, '--scopes'));
  const expiresInMs = values['expires-in'] ? parseDuration(values['expires-in']) : null;
  const created = await withDatabase((orm) => createApiKey(orm.em.fork(), { shopId, scopes, name: values.name ?? null, expiresInMs }));
  if (values.json) {
    console.log(JSON.stringify({ id: created.id, key: created.key, shopId: created.shopId, scopes: created.scopes }));
    return;
  }
  console.log(`API key ${created.id} for shop ${created.shopId} (scopes: ${created.scopes.join(',')}${created.expiresAt ? `, expires ${created.expiresAt}` : ''})`);
  console.log(`\n  ${created.key}\n`);
  console.log('It is shown only now: bomcore keeps a hash, not the key.');
}

async function listKeys(args: string[]): Promise<void> {
  const { values } = parse(args, { shop: { type: 'string' }, json: { type: 'boolean' } });
  const shopId = requiredString(values.shop, '--shop');
  const keys = await withDatabase((orm) => listApiKeys(orm.em.fork(), shopId));
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
  await withDatabase((orm) => revokeApiKey(orm.em.fork(), id));
  console.log(`revoked ${id}`);
}
