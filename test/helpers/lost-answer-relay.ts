import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP relay in front of PostgreSQL for fault tests: it can cut one connection, and it can lose
 * the server's answer to a statement — the statement reaches the server and runs (a COMMIT
 * commits, an INSERT is stored), then the connection is cut when its answer arrives, so the
 * client sees only a broken connection. That is the moment a cut does most harm, and one random
 * cuts rarely hit (they mostly land while connections are opened). Put test/helpers/tcp-proxy.ts in
 * front of it for cuts of every connection at once.
 */
export interface LostAnswerRelay {
  port: number;
  /** Cuts one open connection, picked at random. */
  cutOne(): void;
  /** From now on, loses the answer of `commitRate` of the COMMITs and `rate` of the other statements (null: none). */
  loseAnswers(rates: { commitRate: number; rate: number } | null): void;
  /** Loses the answer of the next statement whose text matches `pattern`; resolves once it did. */
  loseAnswerTo(pattern: RegExp): Promise<void>;
  /** Answers lost so far: COMMITs and the others. */
  lost(): { commits: number; others: number };
  close(): Promise<void>;
}

/** A Query message ('Q', length, text): the protocol bomcore's driver sends statements with. */
function statementText(chunk: Buffer): string | null {
  return chunk[0] === 0x51 ? chunk.subarray(5).toString('latin1') : null;
}

export async function startLostAnswerRelay(target: { host: string; port: number }): Promise<LostAnswerRelay> {
  const pairs = new Set<Socket[]>();
  let rates: { commitRate: number; rate: number } | null = null;
  let once: { pattern: RegExp; fired: () => void } | null = null;
  const lost = { commits: 0, others: 0 };

  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    const pair = [client, upstream];
    pairs.add(pair);
    const cut = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of pair) socket.on('error', cut).on('close', cut);
    /** What to count when the answer now awaited arrives, if it is to be lost. */
    let loseNext: 'commits' | 'others' | null = null;
    let onLost: (() => void) | null = null;
    client.on('data', (chunk) => {
      const text = statementText(chunk);
      if (text !== null) {
        const isCommit = /^commit\b/i.test(text);
        if (once?.pattern.test(text)) {
          loseNext = isCommit ? 'commits' : 'others';
          onLost = once.fired;
          once = null;
        } else if (rates && Math.random() < (isCommit ? rates.commitRate : rates.rate)) {
          loseNext = isCommit ? 'commits' : 'others';
        }
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (loseNext === null) return void client.write(chunk);
      lost[loseNext]++;
      cut();
      onLost?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));

  return {
    port: (server.address() as { port: number }).port,
    cutOne() {
      const open = [...pairs];
      const pair = open[Math.floor(Math.random() * open.length)];
      for (const socket of pair ?? []) socket.destroy();
    },
    loseAnswers(next) {
      rates = next;
    },
    loseAnswerTo(pattern) {
      return new Promise((resolve) => {
        once = { pattern, fired: resolve };
      });
    },
    lost: () => ({ ...lost }),
    close() {
      once = null;
      for (const pair of [...pairs]) for (const socket of pair) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
