/**
 * What a read says about the platform behind its answer (docs/shopify.md, "When Shopify is slow or
 * down"): each code with its meaning and the remedy every warning of that code carries. REST puts
 * them in `meta.warnings`, GraphQL in the response's `extensions.warnings`.
 */
export const PLATFORM_WARNINGS = {
  PLATFORM_STALE: {
    description: 'the store does not answer: platform levels, products and orders are served as last read from it',
    remedy: 'nothing to re-send: stock moves wait in the outbox and the next reconciliation pass (or `bomcore shop sync`) catches up once the store answers; `bomcore shop status` shows the error',
  },
  PLATFORM_UNINSTALLED: {
    description: 'the store uninstalled the app: platform levels, products and orders are served as last read, and stock moves are not pushed',
    remedy: 'reinstall the app in the store and run `bomcore shop connect` again',
  },
  PLATFORM_REAUTHORIZE: {
    description: 'the store refused to renew bomcore\'s access token: platform levels, products and orders are served as last read, and stock moves wait in the outbox',
    remedy: 'install the app in the store again (open the install link, GET /shopify/install?shop=<store>.myshopify.com) or run `bomcore shop connect` again; waiting stock moves are pushed then',
  },
} as const satisfies Record<string, { description: string; remedy: string }>;

export type PlatformWarningCode = keyof typeof PLATFORM_WARNINGS;
export const PLATFORM_WARNING_CODES = Object.keys(PLATFORM_WARNINGS) as PlatformWarningCode[];

export interface PlatformWarning {
  code: PlatformWarningCode;
  message: string;
  remedy: string;
  /** When the store was last read whole (a sync or a reconciliation pass that ended); null: never. */
  lastSyncedAt: string | null;
  /** Whole seconds since `lastSyncedAt`: the age of the platform data served; null: never synced. */
  ageSeconds: number | null;
}
