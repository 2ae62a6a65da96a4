import { Migration } from '@mikro-orm/migrations';

/**
 * The platform order a push comes from: an order fulfilment's component deductions carry it, so the
 * push can name the order as its reference document on the platform (Shopify's inventory history
 * then links the adjustment to the order, as it links a build run's to the run). Null for every
 * other push, and for the pushes already in the outbox.
 */
export class Migration20261203090000 extends Migration {
  override up(): void {
    this.addSql(`alter table "platform_pushes" add column if not exists "order_id" text null;`);
  }

  override down(): void {
    this.addSql(`alter table "platform_pushes" drop column if exists "order_id";`);
  }
}
