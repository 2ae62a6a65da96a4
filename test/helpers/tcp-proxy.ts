import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * What the proxy does with connections (`cut()` and `cutWhenSent()` destroy connections on top):
 * - `pass`: forwards bytes both ways;
 * - `stall`: accepts new connections and holds their bytes (open ones stop forwarding too), as a
 *   network that drops packets without resetting anything;
 * - `refuse`: stops listening (and drops open connections), so a connect gets ECONNREFUSED.
 */
export type ProxyMode = 'pass' | 'stall' | 'refuse';

export interface TcpProxy {
  /** The port clients connect to (stays the same across `refuse`). */
  port: number;
  /** Switches mode; resolves once the listener is open again (leaving `refuse`) or closed (entering it). */
  setMode(mode: ProxyMode): Promise<void>;
  /** Destroys every open connection both ways (a killed backend or a cut cable), keeps the mode. */
  cut(): void;
  /**
   * Arms a one-shot cut: the next connection whose client sends bytes containing `marker` (SQL text
   * travels in clear in the PostgreSQL protocol) is destroyed instead of forwarded, as if its backend
   * had been killed mid-statement. Resolves with the number of cuts so far when it fires.
   */
  cutWhenSent(marker: string): Promise<number>;
  /** Local ports of the upstream connections (PostgreSQL's `pg_stat_activity.client_port`). */
  upstreamPorts(): number[];
  /** Connections accepted since the start. */
  accepted(): number;
  /** Connections open now. */
  open(): number;
  /** A URL like `target` (a postgres:// URL) with host and port replaced by the proxy's. */
  url(target: string): string;
  close(): Promise<void>;
}

interface Pair { client: Socket; upstream: Socket | null; held: Buffer[] }

/** A TCP proxy in front of `target` (host:port) on 127.0.0.1, controlled by the test. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'pass';
  let acceptedCount = 0;
  let cuts = 0;
  let armed: { marker: string; fired: (cuts: number) => void } | null = null;
  const pairs = new Set<Pair>();
  let server: Server | null = null;
  let port = 0;

  const destroy = (pair: Pair) => {
    pair.client.destroy();
    pair.upstream?.destroy();
    pairs.delete(pair);
  };

  const link = (pair: Pair) => {
    const upstream = connect(target.port, target.host);
    pair.upstream = upstream;
    upstream.on('error', () => destroy(pair));
    upstream.on('close', () => destroy(pair));
    upstream.on('data', (chunk) => {
      if (mode === 'stall') return; // swallowed: a stalled network loses nothing visible but time
      pair.client.write(chunk);
    });
    for (const chunk of pair.held.splice(0)) upstream.write(chunk);
  };

  const onConnection = (client: Socket) => {
    acceptedCount++;
    const pair: Pair = { client, upstream: null, held: [] };
    pairs.add(pair);
    client.on('error', () => destroy(pair));
    client.on('close', () => destroy(pair));
    client.on('data', (chunk) => {
      if (armed && chunk.includes(armed.marker)) {
        const { fired } = armed;
        armed = null;
        destroy(pair);
        fired(++cuts);
        return;
      }
      if (mode === 'stall' || !pair.upstream) {
        pair.held.push(chunk);
        return;
      }
      pair.upstream.write(chunk);
    });
    if (mode !== 'stall') link(pair);
  };

  const listen = () => new Promise<void>((resolve, reject) => {
    const s = createServer(onConnection);
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => {
      server = s;
      port = (s.address() as { port: number }).port;
      resolve();
    });
  });
  /** Stops listening and drops every open connection (close() alone would wait for them to end). */
  const stopListening = () => new Promise<void>((resolve) => {
    const s = server;
    server = null;
    for (const pair of [...pairs]) destroy(pair);
    if (!s) return resolve();
    s.close(() => resolve());
  });

  await listen();

  return {
    get port() {
      return port;
    },
    async setMode(next) {
      const previous = mode;
      mode = next;
      if (next === 'refuse') {
        await stopListening();
      } else if (previous === 'refuse') {
        await listen();
      }
      if (previous === 'stall' && next === 'pass') {
        // Held connections were never linked upstream, or lost bytes while stalled: end them
        // cleanly rather than hand a client a half-conversation.
        for (const pair of [...pairs]) destroy(pair);
      }
    },
    cut() {
      for (const pair of [...pairs]) destroy(pair);
    },
    cutWhenSent(marker) {
      return new Promise((resolve) => {
        armed = { marker, fired: resolve };
      });
    },
    upstreamPorts: () => [...pairs].map((p) => p.upstream?.localPort).filter((p): p is number => typeof p === 'number'),
    accepted: () => acceptedCount,
    open: () => pairs.size,
    url(targetUrl) {
      const u = new URL(targetUrl);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    async close() {
      armed = null;
      await stopListening();
    },
  };
}
