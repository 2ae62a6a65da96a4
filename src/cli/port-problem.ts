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
