/**
 * What an API key may do. Lives outside src/modules so the HTTP layer and the REST facade can
 * name scopes without depending on the auth module (src/modules/auth/keys.ts re-exports it).
 */
export const SCOPES = ['read', 'write'] as const;
export type Scope = (typeof SCOPES)[number];
