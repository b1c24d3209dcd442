import type { Server } from 'node:http';

export function listeningPort(server: { address(): unknown }): number {
  const address = server.address();
  if (typeof address === 'object' && address !== null && 'port' in address) return Number(address.port);
  throw new Error('Server is not listening on a TCP port');
}

/** Closes a server without waiting for long polls and keep-alive sockets to drain. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolveClose) => {
    server.close(() => resolveClose());
    server.closeAllConnections();
  });
}
