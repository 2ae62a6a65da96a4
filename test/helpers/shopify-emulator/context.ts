import { GraphQLError } from 'graphql';
import type { EmulatedShop } from './shop.ts';

/** What every emulator request shares, whatever the shop. */
export interface EmulatorCore {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly apiVersion: string;
  readonly apiSecret: string;
  /** How long a bulk operation reads RUNNING at least. */
  readonly bulkRunningMs: number;
  /** Where bulk JSONL files are written. */
  readonly bulkDir: string;
}

export interface EmulatorContext {
  shop: EmulatedShop;
  emulator: EmulatorCore;
  /** Set while a bulk operation runs its query: connections are unbounded, the root one sliced. */
  bulk: { offset: number; limit: number; rootTotal: number } | null;
  /** A mutation changed the store during this request (timeoutAfterApply drops the answer then). */
  applied: boolean;
}

/**
 * Shopify's access check: a field whose scope the app was not granted answers ACCESS_DENIED (and
 * null), the rest of the query still runs. A `write_` scope implies its `read_`.
 */
export function requireScope(ctx: EmulatorContext, scope: string, field: string): void {
  const granted = ctx.shop.scopes;
  if (granted.has(scope) || (scope.startsWith('read_') && granted.has(`write_${scope.slice(5)}`))) return;
  throw new GraphQLError(`Access denied for ${field} field. Required access: \`${scope}\` access scope.`, {
    extensions: { code: 'ACCESS_DENIED', documentation: 'https://shopify.dev/api/usage/access-requirements', requiredAccess: `\`${scope}\` access scope.` },
  });
}
