import type { GraphQLResolveInfo } from 'graphql';
import { requireScope, type EmulatorContext } from '../context.ts';
import { gidType, legacyId } from '../gid.ts';
import type { MetafieldRecord, WebhookSubscriptionRecord } from '../records.ts';
import { nodeOf } from './query.ts';

// metafieldsSet takes at most 25 metafields a call and needs write access to the owner's resource
// (https://shopify.dev/docs/api/admin-graphql/2026-10/mutations/metafieldsSet); webhookSubscriptionCreate /
// Delete need no extra scope beyond reading the topic's resource
// (https://shopify.dev/docs/api/admin-graphql/2026-10/mutations/webhookSubscriptionCreate).

type Ctx = EmulatorContext;

interface MetafieldInput {
  ownerId: string;
  namespace?: string | null;
  key: string;
  type?: string | null;
  value: string;
  compareDigest?: string | null;
}

/** Shopify: "Allows a maximum of 25 metafields to be set at a time". */
export const METAFIELDS_SET_MAX = 25;

const OWNER_SCOPES: Record<string, string> = { Order: 'write_orders', Product: 'write_products', ProductVariant: 'write_products', Location: 'write_locations' };
const TYPES = new Set(['single_line_text_field', 'multi_line_text_field', 'json', 'number_integer', 'number_decimal', 'boolean', 'date', 'date_time', 'url']);

export function metafieldsSet(_: unknown, args: { metafields: MetafieldInput[] }, ctx: Ctx) {
  const errors: { field: string[]; message: string; code: string; elementIndex: number | null }[] = [];
  if (args.metafields.length > METAFIELDS_SET_MAX) {
    errors.push({ field: ['metafields'], message: `Exceeded the maximum metafields input limit of ${METAFIELDS_SET_MAX}.`, code: 'LESS_THAN_OR_EQUAL_TO', elementIndex: null });
    return { metafields: null, userErrors: errors };
  }
  const store = ctx.shop.store;
  args.metafields.forEach((m, i) => {
    const type = gidType(m.ownerId) ?? '';
    const scope = OWNER_SCOPES[type];
    if (scope) requireScope(ctx, scope, 'metafieldsSet');
    if (!nodeOf(ctx, m.ownerId)) errors.push({ field: ['metafields', String(i), 'ownerId'], message: 'Owner does not exist.', code: 'INVALID', elementIndex: i });
    if (!/^[A-Za-z0-9_-]{2,64}$/.test(m.key)) errors.push({ field: ['metafields', String(i), 'key'], message: 'Key must be 2-64 characters and contain only alphanumeric, hyphen and underscore.', code: 'INVALID', elementIndex: i });
    if (m.namespace != null && !/^[A-Za-z0-9_$-]{3,255}$/.test(m.namespace)) errors.push({ field: ['metafields', String(i), 'namespace'], message: 'Namespace must be 3-255 characters.', code: 'INVALID', elementIndex: i });
    const existing = store.metafields.get(keyOf(m));
    const metaType = m.type ?? existing?.type;
    if (!metaType) errors.push({ field: ['metafields', String(i), 'type'], message: "Type can't be blank.", code: 'BLANK', elementIndex: i });
    else if (!TYPES.has(metaType)) errors.push({ field: ['metafields', String(i), 'type'], message: 'Type is invalid.', code: 'INVALID_TYPE', elementIndex: i });
    else if (metaType === 'json' && !isJson(m.value)) errors.push({ field: ['metafields', String(i), 'value'], message: 'Value is invalid JSON.', code: 'INVALID_VALUE', elementIndex: i });
  });
  // Atomic: "no changes are persisted if an error is encountered".
  if (errors.length) return { metafields: null, userErrors: errors };
  const at = store.stamp();
  const written = args.metafields.map((m) => {
    const key = keyOf(m);
    const existing = store.metafields.get(key);
    const rec: MetafieldRecord = existing
      ? { ...existing, value: m.value, type: m.type ?? existing.type, updatedAt: at }
      : { __typename: 'Metafield', id: store.newId(), ownerId: m.ownerId, namespace: m.namespace ?? '$app', key: m.key, type: m.type!, value: m.value, createdAt: at, updatedAt: at };
    store.metafields.set(key, rec);
    return rec;
  });
  ctx.applied = true;
  return { metafields: written, userErrors: [] };
}

function keyOf(m: MetafieldInput): string {
  return `${m.ownerId}|${m.namespace ?? '$app'}|${m.key}`;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

interface WebhookInput {
  uri?: string | null;
  callbackUrl?: string | null;
  format?: 'JSON' | 'XML' | null;
  filter?: string | null;
  includeFields?: string[] | null;
  metafieldNamespaces?: string[] | null;
  name?: string | null;
}

export function webhookSubscriptionCreate(_: unknown, args: { topic: string; webhookSubscription: WebhookInput }, ctx: Ctx, _info: GraphQLResolveInfo) {
  const input = args.webhookSubscription;
  const uri = input.uri ?? input.callbackUrl ?? null;
  const fail = (field: string, message: string) => ({ webhookSubscription: null, userErrors: [{ field: ['webhookSubscription', field], message }] });
  if (!uri) return fail('uri', "Address can't be blank");
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return fail('uri', 'Address is invalid');
  }
  // Shopify wants HTTPS; plain http is let through for loopback receivers only (tests).
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) return fail('uri', `Address protocol ${url.protocol}// is not supported`);
  const store = ctx.shop.store;
  if ([...store.webhookSubscriptions.values()].some((w) => w.topic === args.topic && w.uri === uri)) return fail('uri', 'Address for this topic has already been taken');
  const at = store.stamp();
  const rec: WebhookSubscriptionRecord = {
    __typename: 'WebhookSubscription', id: store.newId(), topic: args.topic, uri, format: input.format ?? 'JSON', filter: input.filter ?? null,
    includeFields: input.includeFields ?? [], metafieldNamespaces: input.metafieldNamespaces ?? [], name: input.name ?? null, createdAt: at, updatedAt: at,
  };
  store.webhookSubscriptions.set(rec.id, rec);
  store.changed('webhookSubscriptions');
  ctx.applied = true;
  return { webhookSubscription: rec, userErrors: [] };
}

export function webhookSubscriptionDelete(_: unknown, args: { id: string }, ctx: Ctx) {
  const store = ctx.shop.store;
  const id = legacyId(args.id, 'WebhookSubscription');
  if (!id || !store.webhookSubscriptions.delete(id)) {
    return { deletedWebhookSubscriptionId: null, userErrors: [{ field: ['id'], message: 'Webhook subscription does not exist' }] };
  }
  store.changed('webhookSubscriptions');
  ctx.applied = true;
  return { deletedWebhookSubscriptionId: args.id, userErrors: [] };
}
