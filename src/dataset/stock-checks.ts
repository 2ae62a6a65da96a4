import { Decimal } from 'decimal.js';
import type { CheckContext } from './check-context.ts';
import { expectKnown, expectLocation, isStockItem, resolveOwner, UniqueKeys } from './check-context.ts';
import type { ProblemKind } from './problems.ts';
import type { DatasetBillVersion, DatasetPreassembled, DatasetReservation, DatasetResidual } from './types.ts';

// Cross-record rules of stock bookkeeping (pre-assembled shelves, residuals, reservations) and
// of bill versions, one record at a time.

function expectStockItem(ctx: CheckContext, kind: ProblemKind, path: string, itemId: string | null): void {
  if (typeof itemId === 'string' && !isStockItem(ctx, itemId)) {
    ctx.problems.add(kind, path, `unknown stock item "${itemId}" (expected a material, a platform variant or an assembly bill)`);
  }
}

export class PreassembledChecks {
  private readonly ctx: CheckContext;
  private readonly keys: UniqueKeys<DatasetPreassembled>;

  constructor(ctx: CheckContext) {
    this.ctx = ctx;
    this.keys = new UniqueKeys<DatasetPreassembled>(ctx.problems, 'stock:preassembled:duplicates', (s) => [s.itemId, s.locationId],
      (i) => `$.preassembled[${i}]`, (s) => `shelf for "${s.itemId}" at location "${s.locationId}"`);
  }

  check(shelf: DatasetPreassembled, i: number): void {
    const ctx = this.ctx;
    const path = `$.preassembled[${i}]`;
    expectLocation(ctx, 'stock:preassembled', `${path}.locationId`, shelf.locationId);
    // Finished goods are shelved under the variant they sell as, assembly bills under their id.
    if (typeof shelf.itemId === 'string' && !ctx.variants.has(shelf.itemId) && !ctx.assemblyBills.has(shelf.itemId)) {
      ctx.problems.add('stock:preassembled', `${path}.itemId`, `unknown pre-assembled item "${shelf.itemId}" (expected a platform variant or an assembly bill)`);
    }
    this.keys.add(shelf, i);
  }
}

export class ResidualChecks {
  private readonly ctx: CheckContext;
  private readonly keys: UniqueKeys<DatasetResidual>;

  constructor(ctx: CheckContext) {
    this.ctx = ctx;
    this.keys = new UniqueKeys<DatasetResidual>(ctx.problems, 'stock:residuals:duplicates', (r) => [r.itemId, r.locationId, r.kind],
      (i) => `$.residuals[${i}]`, (r) => `${r.kind} residual for "${r.itemId}" at location "${r.locationId}"`);
  }

  check(residual: DatasetResidual, i: number): void {
    expectLocation(this.ctx, 'stock:residuals', `$.residuals[${i}].locationId`, residual.locationId);
    expectStockItem(this.ctx, 'stock:residuals', `$.residuals[${i}].itemId`, residual.itemId);
    this.keys.add(residual, i);
  }
}

export class ReservationChecks {
  private readonly ctx: CheckContext;
  private readonly keys: UniqueKeys<DatasetReservation>;

  constructor(ctx: CheckContext) {
    this.ctx = ctx;
    // One hold per holder and place: a second row would be a split the service cannot tell apart.
    this.keys = new UniqueKeys<DatasetReservation>(ctx.problems, 'stock:reservations:duplicates',
      (r) => (r.kind === 'order' ? [r.kind, r.itemId, r.locationId, r.orderId] : [r.kind, r.itemId, r.locationId, r.ownerType, r.ownerId]),
      (i) => `$.reservations[${i}]`,
      (r) => (r.kind === 'order'
        ? `order reservation of "${r.itemId}" at location "${r.locationId}" for order "${r.orderId}"`
        : `safety-stock reservation of "${r.itemId}" at location "${r.locationId}" for ${r.ownerType} "${r.ownerId}"`));
  }

  check(reservation: DatasetReservation, i: number): void {
    const ctx = this.ctx;
    const kind = 'stock:reservations';
    const path = `$.reservations[${i}]`;
    expectLocation(ctx, kind, `${path}.locationId`, reservation.locationId);
    expectStockItem(ctx, kind, `${path}.itemId`, reservation.itemId);
    if (reservation.kind === 'order') {
      expectKnown(ctx, kind, `${path}.orderId`, reservation.orderId, ctx.orders, 'order');
      const { quantity, fulfilledQuantity } = reservation;
      if (quantity !== null && fulfilledQuantity !== null && new Decimal(fulfilledQuantity).gt(quantity)) {
        ctx.problems.add(kind, `${path}.fulfilledQuantity`, `must not exceed quantity (${quantity}), got ${fulfilledQuantity}`);
      }
    } else {
      resolveOwner(ctx, kind, `${path}.ownerId`, reservation.ownerType, reservation.ownerId);
    }
    this.keys.add(reservation, i);
  }
}

export class BillVersionChecks {
  private readonly ctx: CheckContext;
  private readonly keys: UniqueKeys<DatasetBillVersion>;

  constructor(ctx: CheckContext) {
    this.ctx = ctx;
    this.keys = new UniqueKeys<DatasetBillVersion>(ctx.problems, 'stock:billVersions:duplicates',
      (v) => [v.ownerType, v.ownerId, v.version === null ? null : String(v.version)],
      (i) => `$.billVersions[${i}].version`, (v) => `version ${v.version} of ${v.ownerType} "${v.ownerId}"`);
  }

  check(version: DatasetBillVersion, i: number): void {
    resolveOwner(this.ctx, 'stock:billVersions', `$.billVersions[${i}].ownerId`, version.ownerType, version.ownerId);
    this.keys.add(version, i);
  }
}
