/**
 * A real HTTP receiver for webhook deliveries: a node:http server on loopback (127.0.0.1 unless
 * told another address and port) that records every request and answers as the test tells it to.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { until } from './patience.ts';
import { verifyAnswer } from './signed.ts';

export interface Delivery {
  method: string;
  /** The request's target as sent: path and query. */
  target: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed body: the webhook-event document. */
  json: any;
  at: number;
}

export interface Answer {
  status: number;
  body?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Answer only once this settles (and delayMs has passed). */
  until?: Promise<unknown>;
}

export interface Receiver {
  url: string;
  deliveries: Delivery[];
  /** Decides each answer (default 204); `n` counts deliveries from 1. */
  answer: (delivery: Delivery, n: number) => Answer;
  /** Resolves once `predicate` holds for the deliveries (patience.ts: rejects only past PATIENCE_MS). */
  waitFor(predicate: (deliveries: Delivery[]) => boolean): Promise<Delivery[]>;
  close(): Promise<void>;
}

/** Where a receiver listens: an IPv4 loopback address (127.0.0.2...) and a port (0: any free one). */
export interface Listen {
  address?: string;
  port?: number;
}

/** Rejects when the port is taken on that address. */
export async function startReceiver(path = '/hooks', listen: Listen = {}): Promise<Receiver> {
  const { address = '127.0.0.1', port = 0 } = listen;
  const receiver: Receiver = {
    url: '',
    deliveries: [],
    answer: () => ({ status: 204 }),
    waitFor: (predicate) =>
      until(
        async () => predicate(receiver.deliveries) && receiver.deliveries,
        () =>
          `deliveries; got ${receiver.deliveries.length}: ${receiver.deliveries.map((d) => d.json?.data?.attributes?.event).join(', ')}`,
        50,
      ),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const delivery: Delivery = {
        method: request.method ?? '',
        target: request.url ?? '',
        headers: request.headers,
        body,
        json,
        at: Date.now(),
      };
      receiver.deliveries.push(delivery);
      const answer = receiver.answer(delivery, receiver.deliveries.length);
      setTimeout(() => {
        void Promise.resolve(answer.until)
          .catch(() => undefined)
          .then(() => {
            response.writeHead(answer.status, { 'content-type': 'text/plain' });
            response.end(answer.body ?? '');
          });
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => resolve());
  });
  receiver.url = `http://${address}:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}

/** Verifies a delivery with the standardwebhooks package; returns the verified payload (throws if invalid). */
export function verify(secret: string, delivery: Delivery): unknown {
  return new Webhook(secret).verify(delivery.body, {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  });
}

/**
 * What is wrong with a delivery's Keygen signature (undefined: none), checked as Keygen's SDKs
 * check it (`keygen.VerifyWebhook`: the POST's target and Host, its Date and the Digest of its
 * body) against the account's public key (hex), by tweetnacl.
 */
export function keygenSignatureProblem(delivery: Delivery, publicKeyHex: string): string | undefined {
  const headers = new Headers();
  for (const [name, value] of Object.entries(delivery.headers)) if (typeof value === 'string') headers.set(name, value);
  const url = new URL(delivery.target, `http://${delivery.headers.host}`);
  return verifyAnswer({ method: delivery.method, url, status: 200, headers, body: Buffer.from(delivery.body) }, publicKeyHex, 'tweetnacl');
}

/** Deliveries of one event kind. */
export const ofKind = (deliveries: Delivery[], kind: string) => deliveries.filter((d) => d.json?.data?.attributes?.event === kind);
