import type { MikroORM as CoreORM } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';

// The ORM's types as the kernel names them (the shop context, the platform port): declared here
// from the ORM's own packages, so the kernel needs nothing of src/db, which builds the ORM on them.

/** The opened ORM: MikroORM with its SQL entity manager. */
export type Orm = CoreORM & { em: SqlEntityManager };
/** A (forked) entity manager: one unit of work, one connection while it is in a transaction. */
export type Em = SqlEntityManager;
