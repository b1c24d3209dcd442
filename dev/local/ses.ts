/**
 * The SES-compatible server (`aws-ses-v2-local`). Its page at `/` shows every mail sent, and
 * `GET /store` returns them as JSON. Mails are kept in memory only.
 */
import type { Server } from 'node:http';
import sesModule from 'aws-ses-v2-local';
import { closeServer, listeningPort } from './servers.ts';

export interface LocalSes {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

// A CommonJS package: under Node's ESM loader its default export is the whole `exports` object;
// under a bundler's interop (vitest's, for a test that runs a stack in its own process) it is `exports.default`.
const startSesServer = typeof sesModule === 'function' ? sesModule : sesModule.default;

export async function startSes(options: { port: number }): Promise<LocalSes> {
  const server: Server = await startSesServer({ port: options.port, host: '127.0.0.1' });
  // The package resolves even when listening failed (e.g. the port is taken).
  if (!server.listening) {
    await closeServer(server).catch(() => undefined);
    throw new Error(`The mail server could not listen on 127.0.0.1:${options.port} (is the port taken?)`);
  }
  const port = listeningPort(server);
  return { endpoint: `http://127.0.0.1:${port}`, port, stop: () => closeServer(server) };
}
