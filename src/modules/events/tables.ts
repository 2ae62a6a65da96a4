import type { InferKyselyDB } from '@mikro-orm/sql';
import { sqlBuilder } from '../../db/typed-sql.ts';
import { Event, EventSequence, WebhookDelivery, WebhookEndpoint } from './event.entity.ts';

/** The events module's tables, typed from their entity definitions: its queries can name no other module's table. */
export type EventTables = InferKyselyDB<typeof EventSequence | typeof Event | typeof WebhookEndpoint | typeof WebhookDelivery>;

/** Builds the events module's queries; run them with `runSql` (src/db/typed-sql.ts). */
export const eventsSql = sqlBuilder<EventTables>();
