import type { Orm } from './orm.ts';
import { isOnServer } from './orm.ts';

// LISTEN on one channel for the life of the process. On PostgreSQL a dedicated connection (not a
// pool's: a pooled one would be handed back, and a listener's connection is busy for good), opened
// again after it breaks; on the embedded database PGlite's own `listen` (one process, no socket).

export interface NoticeListener { close(): Promise<void> }

interface Logger { warn(obj: object, msg: string): void }

const RECONNECT_MS = 1000;
/** How long opening the listening connection may take before it is tried again. */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * Calls `onNotice` with each notice's payload. On PostgreSQL the listening connection is opened in
 * the background (a database that refuses, hangs up or stalls must not hold or fail the server's
 * start: its requests answer 503 meanwhile) and opened again after it breaks; notices of
 * transactions committed while it is not listening are not delivered (subscriptions are live only).
 */
export async function listenForNotices(orm: Orm, channel: string, onNotice: (payload: string) => void, log: Logger): Promise<NoticeListener> {
  if (!isOnServer(orm)) {
    const pglite = await (orm.em.getDriver().getConnection() as unknown as {
      getNativeClient(): Promise<{ listen(channel: string, cb: (payload: string) => void): Promise<() => Promise<void>> }>;
    }).getNativeClient();
    const unlisten = await pglite.listen(channel, onNotice);
    return { close: () => unlisten() };
  }
  const { default: pg } = await import('pg');
  const url = orm.config.get('clientUrl') as string;
  let closed = false;
  let client: InstanceType<typeof pg.Client> | null = null;
  let retry: NodeJS.Timeout | null = null;
  const open = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url, keepAlive: true, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    next.on('notification', (message) => {
      if (message.channel === channel && message.payload !== undefined) onNotice(message.payload);
    });
    next.on('error', (error) => {
      log.warn({ err: error }, 'the live events listener lost its connection; listening again');
      void next.end().catch(() => undefined);
      if (client === next) client = null;
      schedule();
    });
    try {
      await next.connect();
      await next.query(`listen "${channel.replaceAll('"', '""')}"`);
    } catch (error) {
      await next.end().catch(() => undefined);
      throw error;
    }
    if (closed) {
      await next.end();
      return;
    }
    client = next;
  };
  const schedule = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      open().catch((error: unknown) => {
        log.warn({ err: error }, 'the live events listener could not connect; retrying');
        schedule();
      });
    }, RECONNECT_MS);
    retry.unref();
  };
  void open().catch((error: unknown) => {
    log.warn({ err: error }, 'the live events listener could not connect; retrying');
    schedule();
  });
  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await client?.end().catch(() => undefined);
      client = null;
    },
  };
}
