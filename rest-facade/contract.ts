/** Where REST API v1 is mounted: every path below (and the OpenAPI document's) starts with it. */
export const REST_PREFIX = '/api/v1';

/**
 * Every path of the REST v1 contract with the methods it has (the route table of docs/contract.md). The facade
 * answers every other method on these paths with 405 and this list in `Allow`.
 */
export const CONTRACT_PATHS: Record<string, readonly ('GET' | 'PATCH')[]> = {
  '/raw-materials': ['GET'],
  '/raw-materials/:variantId': ['GET', 'PATCH'],
  '/raw-materials/:variantId/inventory': ['GET', 'PATCH'],
  '/raw-materials/:variantId/residual': ['GET'],
  '/raw-materials/:variantId/preassembled': ['GET'],
  '/raw-materials/:variantId/commitments': ['GET'],
  '/raw-materials/:variantId/shelf-allocation': ['GET'],
  '/raw-materials/:variantId/work-order-allocation': ['GET'],
  '/assembly-bills/:id/preassembled': ['GET'],
  '/bills-of-materials': ['GET'],
  '/bills-of-materials/:id': ['GET'],
  '/bills-of-materials/:id/buildable': ['GET'],
  '/bills-of-materials/:id/location-rules': ['GET'],
  '/bill-versions/:ownerType/:ownerId': ['GET'],
  '/locations': ['GET'],
  '/assignees': ['GET'],
  '/work-orders': ['GET'],
  '/work-orders/:id': ['GET', 'PATCH'],
  '/work-orders/:id/material-plan': ['GET'],
  '/work-orders/:id/build-runs': ['GET', 'PATCH'],
  '/work-orders/:id/transition': ['PATCH'],
  '/order-bom-breakdown': ['GET'],
  '/order-bom-breakdown/:id': ['GET'],
  '/openapi.json': ['GET'],
};

/** Methods a client might send that the contract never has. */
export const FOREIGN_METHODS = ['HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS'] as const;

export function allowHeader(methods: readonly string[]): string {
  return [...methods].sort((a, b) => (a === 'GET' ? -1 : b === 'GET' ? 1 : a.localeCompare(b))).join(', ');
}
