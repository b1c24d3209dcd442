import { createServer } from 'node:net';

/** Asks the OS for a port nobody is listening on (a service that cannot bind port 0 itself needs this). */
export function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Port 0 means "any free port", as it does for node:net. */
export async function resolvePort(port: number, host?: string): Promise<number> {
  return port === 0 ? findFreePort(host) : port;
}
