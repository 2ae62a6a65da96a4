import type { Config } from './config.ts';
import type { Scope } from './modules/auth/keys.ts';
import type { Em } from './db/orm.ts';
import type { PlatformGateway } from './platform/gateway.ts';

/**
 * What every service receives first: the tenant, its EntityManager (forked per request, with the
 * tenant filter bound to the shop), the platform port and the request's identity.
 */
export interface ShopContext {
  shopId: string;
  em: Em;
  platform: PlatformGateway;
  config: Config;
  requestId: string;
  apiKeyId: string | null;
  scopes: readonly Scope[];
}
