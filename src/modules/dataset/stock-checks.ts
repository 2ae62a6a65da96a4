import { Decimal } from 'decimal.js';
import type { CheckContext } from './check-context.ts';
import { expectKnown, expectLocation, expectUniqueKeys, isStockItem, present, report, resolveOwner } from './check-context.ts';

// Cross-record rules of stock bookkeeping (pre-assembled shelves, residuals, reservations) and
// of bill versions.

export function checkStock(ctx: CheckContext): void {
  checkPreassembled(ctx);
  checkResiduals(ctx);
  checkReservations(ctx);
  checkBillVersions(ctx);
}

function checkPreassembled(ctx: CheckContext): void {
  const shelves = ctx.dataset.preassembled;
  for (const [shelf, i] of present(shelves)) {
    const path = `$.preassembled[${i}]`;
    expectLocation(ctx, `${path}.locationId`, shelf.locationId);
    // Finished goods are shelved under the variant they sell as, assembly bills under their id.
    if (typeof shelf.itemId === 'string' && !ctx.variants.has(shelf.itemId) && !ctx.assemblyBills.has(shelf.itemId)) {
      report(ctx, `${path}.itemId`, `unknown pre-assembled item "${shelf.itemId}" (expected a platform variant or an assembly bill)`);
    }
  }
  expectUniqueKeys(ctx, shelves, (s) => [s.itemId, s.locationId], (i) => `$.preassembled[${i}]`,
    (s) => `shelf for "${s.itemId}" at location "${s.locationId}"`);
}

function expectStockItem(ctx: CheckContext, path: string, itemId: string | null): void {
  if (typeof itemId === 'string' && !isStockItem(ctx, itemId)) {
    report(ctx, path, `unknown stock item "${itemId}" (expected a material, a platform variant or an assembly bill)`);
  }
}

function checkResiduals(ctx: CheckContext): void {
  const residuals = ctx.dataset.residuals;
  for (const [residual, i] of present(residuals)) {
    expectLocation(ctx, `$.residuals[${i}].locationId`, residual.locationId);
    expectStockItem(ctx, `$.residuals[${i}].itemId`, residual.itemId);
  }
  expectUniqueKeys(ctx, residuals, (r) => [r.itemId, r.locationId, r.kind], (i) => `$.residuals[${i}]`,
    (r) => `${r.kind} residual for "${r.itemId}" at location "${r.locationId}"`);
}

function checkReservations(ctx: CheckContext): void {
  const reservations = ctx.dataset.reservations;
  for (const [reservation, i] of present(reservations)) {
    const path = `$.reservations[${i}]`;
    expectLocation(ctx, `${path}.locationId`, reservation.locationId);
    expectStockItem(ctx, `${path}.itemId`, reservation.itemId);
    if (reservation.kind === 'order') {
      expectKnown(ctx, `${path}.orderId`, reservation.orderId, ctx.orders, 'order');
      const { quantity, fulfilledQuantity } = reservation;
      if (quantity !== null && fulfilledQuantity !== null && new Decimal(fulfilledQuantity).gt(quantity)) {
        report(ctx, `${path}.fulfilledQuantity`, `must not exceed quantity (${quantity}), got ${fulfilledQuantity}`);
      }
    } else {
      resolveOwner(ctx, `${path}.ownerId`, reservation.ownerType, reservation.ownerId);
    }
  }
  // One hold per holder and place: a second row would be a split the service cannot tell apart.
  expectUniqueKeys(ctx, reservations,
    (r) => (r.kind === 'order' ? [r.kind, r.itemId, r.locationId, r.orderId] : [r.kind, r.itemId, r.locationId, r.ownerType, r.ownerId]),
    (i) => `$.reservations[${i}]`,
    (r) => (r.kind === 'order'
      ? `order reservation of "${r.itemId}" at location "${r.locationId}" for order "${r.orderId}"`
      : `safety-stock reservation of "${r.itemId}" at location "${r.locationId}" for ${r.ownerType} "${r.ownerId}"`));
}

function checkBillVersions(ctx: CheckContext): void {
  const versions = ctx.dataset.billVersions;
  for (const [version, i] of present(versions)) {
    resolveOwner(ctx, `$.billVersions[${i}].ownerId`, version.ownerType, version.ownerId);
  }
  expectUniqueKeys(ctx, versions, (v) => [v.ownerType, v.ownerId, v.version === null ? null : String(v.version)],
    (i) => `$.billVersions[${i}].version`, (v) => `version ${v.version} of ${v.ownerType} "${v.ownerId}"`);
}
