import type { InferKyselyDB } from '@mikro-orm/sql';
import { sqlBuilder } from '../db/typed-sql.ts';
import {
  PlatformAppliedPush, PlatformLevel, PlatformLocation, PlatformOrder, PlatformOrderLine, PlatformOrderMetafield, PlatformVariant,
} from './local-store.entity.ts';

/** The local platform store's tables, typed from their entity definitions: its queries can name no other table. */
export type PlatformStoreTables = InferKyselyDB<
  typeof PlatformLocation | typeof PlatformVariant | typeof PlatformLevel | typeof PlatformOrder | typeof PlatformOrderLine
  | typeof PlatformOrderMetafield | typeof PlatformAppliedPush
>;

/** Builds the local platform store's queries; run them with `runSql` (src/db/typed-sql.ts). */
export const platformStoreSql = sqlBuilder<PlatformStoreTables>();
