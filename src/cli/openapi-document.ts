import { loadConfig } from '../kernel/config.ts';
import { buildApp } from '../app/app.ts';
import { openDatabase } from '../app/database.ts';

/**
 * Where the document's app "connects": nowhere. MikroORM 7 connects on the first statement, and
 * building the document runs none, so an address that is never dialled lets `print-openapi` build
 * the app without starting the embedded engine (which took about 5 s and 900 MB for a document
 * that needs no data). A statement that did run would fail at once on the closed port.
 */
const NEVER_DIALLED = 'postgres://print-openapi@127.0.0.1:1/none';

/** The OpenAPI document as the server serves it (built from the route schemas, no database opened). */
export async function buildOpenApiDocument(): Promise<unknown> {
  const config = { ...loadConfig({}), databaseUrl: NEVER_DIALLED, dataDir: 'memory://' };
  const orm = await openDatabase(config);
  const app = await buildApp({ config, orm, logger: false });
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
    await orm.close();
  }
}
