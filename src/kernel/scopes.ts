/**
 * What an API key may do. In the kernel: the shop context carries a request's scopes, and the auth
 * module, the HTTP layer and the REST facade name them without depending on one another
 * (src/modules/auth/keys.ts re-exports them).
 */
export const SCOPES = ['read', 'write'] as const;
export type Scope = (typeof SCOPES)[number];
