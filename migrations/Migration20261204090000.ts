import { Migration } from '@mikro-orm/migrations';

/**
 * How a connection got its token, and what renews it (docs/shopify.md, "Connect"): `token` (a
 * legacy admin-created app's token file, never expiring), `authorization_code` (the install link:
 * an expiring offline token and its refresh token, sealed) or `client_credentials` (an app of the
 * merchant's own organisation: its client ID and sealed secret get a new 24-hour token). A refresh
 * token Shopify refused marks the connection `reauthorize` (reads say PLATFORM_REAUTHORIZE). And the
 * install link's single-use `state` values, ten minutes each, shared by every instance.
 */
export class Migration20261204090000 extends Migration {
  override up(): void {
    this.addSql(`alter table "platform_connections" add "grant_kind" text not null default 'token', add "token_expires_at" timestamptz(3) null, `
      + `add "refresh_token_sealed" text null, add "refresh_token_expires_at" timestamptz(3) null, add "client_id" text null, add "client_secret_sealed" text null, `
      + `add "reauthorize_since" timestamptz(3) null, add "reauthorize_reason" text null;`);
    this.addSql(`create table "shopify_install_states" ("state" text not null, "domain" text not null, "expires_at" timestamptz(3) not null, primary key ("state"));`);
  }

  override down(): void {
    this.addSql(`drop table if exists "shopify_install_states";`);
    for (const column of ['grant_kind', 'token_expires_at', 'refresh_token_sealed', 'refresh_token_expires_at', 'client_id', 'client_secret_sealed', 'reauthorize_since', 'reauthorize_reason']) {
      this.addSql(`alter table "platform_connections" drop column "${column}";`);
    }
  }
}
