import { loadConfig } from '../kernel/config.ts';
import { buildApp } from '../app/app.ts';
import { openDatabase } from '../app/database.ts';

/** The OpenAPI document as the server serves it (built from the route schemas, no database needed). */
export async function buildOpenApiDocument(): Promise<unknown> {
  const config = { ...loadConfig({}), dataDir: 'memory://' };
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
