import { createServer } from 'node:net';
import { CommandError, parse } from './args.ts';

/** Why the server cannot listen on HOST:PORT, in one sentence; null for an error that is not about the address. */
export function portProblem(error: NodeJS.ErrnoException, host: string, port: number): string | null {
  switch (error.code) {
    case 'EADDRINUSE':
      return `port ${port} is already in use on ${host} (another bomcore, or another program): stop it, or choose another port, e.g. PORT=${port === 65535 ? 3001 : port + 1} npm start`;
    case 'EACCES':
      return `port ${port} on ${host} needs privileges this user does not have: choose a port above 1023 (PORT=3000)`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `HOST ${host} is not an address of this machine (PORT ${port})`;
    default:
      return null;
  }
}

/**
 * Fails fast when HOST:PORT is taken: before the database is opened, migrated or given the demo
 * shop (which takes seconds), and before the server's modules are loaded. Port 0 (any free port) passes.
 */
async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      const problem = portProblem(error, host, port);
      reject(problem ? new CommandError(problem) : error);
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

export async function serveCommand(args: string[]): Promise<void> {
  parse(args, {});
  const { loadConfig } = await import('../config.ts');
  const config = loadConfig();
  await checkPortFree(config.host, config.port);
  const { runServer } = await import('./server.ts');
  await runServer(config);
}
