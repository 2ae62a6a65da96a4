import { Migration } from '@mikro-orm/migrations';

/**
 * Reconciliation of a shop's mirror with its Shopify store: when the last pass ended, up to when
 * Shopify's changes are in the mirror, the drift it found, its error, the window it left unfinished,
 * and the lease that keeps a second instance off the shop while a pass runs.
 */
export class Migration20261129090000 extends Migration {
  override up(): void {
    this.addSql(`alter table "platform_connections" add "reconciled_at" timestamptz(3) null, add "reconciled_through" timestamptz(3) null, add "reconcile_drift" jsonb null, add "reconcile_error" text null, add "reconcile_state" jsonb null, add "reconcile_lease_until" timestamptz(3) null;`);
  }

  override down(): void {
    for (const column of ['reconciled_at', 'reconciled_through', 'reconcile_drift', 'reconcile_error', 'reconcile_state', 'reconcile_lease_until']) {
      this.addSql(`alter table "platform_connections" drop column "${column}";`);
    }
  }
}
