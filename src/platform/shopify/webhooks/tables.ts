import type { InferKyselyDB } from '@mikro-orm/sql';
import { sqlBuilder } from '../../../db/typed-sql.ts';
import { ShopifyWebhookEvent } from './inbox.entity.ts';

/** The webhook inbox, typed from its entity: the receiver's and the applier's queries can name no other table. */
export type WebhookInboxTables = InferKyselyDB<typeof ShopifyWebhookEvent>;

/** Builds the inbox's queries; run them with `runSql` (src/db/typed-sql.ts). */
export const webhookInboxSql = sqlBuilder<WebhookInboxTables>();
