import type { Config } from './config.ts';
import type { Em, Orm } from './db/orm.ts';
import type { Scope } from './modules/auth/keys.ts';
import type { PlatformGateway, PlatformGatewayFactory } from './platform/gateway.ts';
import { LocalPlatformGateway } from './platform/local-gateway.ts';

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

export interface ContextDeps { orm: Orm; config: Config; platform?: PlatformGatewayFactory }

/** A fresh context for one shop: its own EntityManager fork, bound to the shop by the tenant filter. */
export function shopContextFor(
  deps: ContextDeps,
  shopId: string,
  identity: { requestId: string; apiKeyId: string | null; scopes: readonly Scope[] },
): ShopContext {
  const em = deps.orm.em.fork();
  em.setFilterParams('tenant', { shopId });
  const platform = (deps.platform ?? ((shop) => new LocalPlatformGateway(shop)))({ shopId, em });
  return { shopId, em, platform, config: deps.config, ...identity };
}
