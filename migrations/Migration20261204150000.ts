import { Migration } from '@mikro-orm/migrations';

/**
 * The mirror of a connected store holds its open orders, and now also the closed, cancelled and
 * older orders a read named, read from Shopify on demand and kept as history: `open` tells them
 * apart (a history order reserves nothing and is not among the shop's orders when all are read).
 * And the order's note (Shopify's `Order.note`), which the breakdown carries. Every existing row
 * is an open order without a note: that is all the mirror held until now, and the next sync reads
 * the notes.
 */
export class Migration20261204150000 extends Migration {
  override up(): void {
    this.addSql(`alter table "platform_orders" add column if not exists "open" boolean not null default true;`);
    this.addSql(`alter table "platform_orders" add column if not exists "note" text null;`);
  }

  override down(): void {
    this.addSql(`alter table "platform_orders" drop column if exists "note";`);
    this.addSql(`alter table "platform_orders" drop column if exists "open";`);
  }
}
