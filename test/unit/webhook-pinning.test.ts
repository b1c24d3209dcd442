/**
 * The webhook POST connects to the address that was checked (docs/rules.md §7.4), against real
 * loopback receivers and a real DNS server: the delivery worker's resolver is pointed at a tiny
 * UDP responder (WEBHOOK_DNS_SERVERS, an operator setting) whose answer changes from one question
 * to the next, as a rebinding name's does. Only the address the first answer gave is reached, and
 * the name is asked once per record type. IP literals ask nothing; IPv6 works; refused addresses
 * stay refused; over https the certificate is verified against the host name (SNI and Host are
 * the name, not the address). The answer: a redirect is not followed, a body that never ends is
 * cut after 2 KB, and no answer in time ends the request; each closes its connection.
 *
 * These run at the worker's level (its `post`, no table needed), not through the shared local
 * stack: the resolver setting must name a responder the test starts, which that stack cannot know.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { createSecureContext } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { post, RESPONSE_BODY_MAX } from '#shared/events/deliver.ts';
import { postPinned } from '#shared/events/transport.ts';
import { type DnsResponder, type Script, startDnsResponder } from '../support/dns-responder.ts';
import { webhookFixtures } from '../support/fixtures/webhook-fixtures.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TLS = resolve(ROOT, 'test/support/fixtures/tls');

const saved = { allow: process.env.ALLOW_PRIVATE_WEBHOOK_TARGETS, servers: process.env.WEBHOOK_DNS_SERVERS };
afterAll(() => {
  process.env.ALLOW_PRIVATE_WEBHOOK_TARGETS = saved.allow;
  process.env.WEBHOOK_DNS_SERVERS = saved.servers;
});

interface Hit {
  headers: IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  port: number;
  hits: Hit[];
  close(): Promise<void>;
}

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()));
});

const listen = (server: Server, address: string, port: number) =>
  new Promise<number>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => resolveListen((server.address() as AddressInfo).port));
  });

/** An HTTP receiver on `address` that answers with its own name and records what it got. */
async function receiver(address: string, name: string, port = 0): Promise<Receiver> {
  const hits: Hit[] = [];
  const server = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      hits.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200, { 'content-type': 'text/plain' }).end(name);
    });
  });
  const bound = await listen(server, address, port);
  const close = () => new Promise<void>((resolveClose) => server.close(() => resolveClose()));
  closing.push(close);
  return { port: bound, hits, close };
}

/** Two receivers on the same port: `checked` on 127.0.0.2, `other` on 127.0.0.1. */
async function twoReceivers() {
  for (;;) {
    const checked = await receiver('127.0.0.2', 'checked');
    try {
      return { checked, other: await receiver('127.0.0.1', 'other', checked.port) };
    } catch {
      // That port is taken on 127.0.0.1: another pair.
    }
  }
}

let dns: DnsResponder;
let script: Script;
beforeEach(async () => {
  script = () => undefined;
  dns = await startDnsResponder((name, type, n) => script(name, type, n));
  closing.push(() => dns.close());
  process.env.WEBHOOK_DNS_SERVERS = dns.server;
  process.env.ALLOW_PRIVATE_WEBHOOK_TARGETS = 'true';
});

const deliver = (url: string) => {
  const { event, endpoint } = webhookFixtures(url);
  return post(event, endpoint);
};

/** A name that answers `first` to the first question of a type, and `later` to every other one. */
const rebinding =
  (host: string, first: string[], later: string[]): Script =>
  (name, type, n) => {
    if (name !== host) return undefined;
    if (type === 'AAAA') return [];
    return n === 1 ? first : later;
  };

describe('the POST goes to the checked address', () => {
  it('a name answering 127.0.0.2, then 127.0.0.1: only 127.0.0.2 is reached, and the name is asked once', async () => {
    const { checked, other } = await twoReceivers();
    script = rebinding('hooks.rebind.test', ['127.0.0.2'], ['127.0.0.1']);
    const answer = await deliver(`http://hooks.rebind.test:${checked.port}/in`);
    expect(answer).toEqual({ code: 200, body: 'checked' });
    expect(other.hits).toEqual([]);
    expect(checked.hits).toHaveLength(1);
    // The Host header is the URL's, not the address.
    expect(checked.hits[0]!.headers.host).toBe(`hooks.rebind.test:${checked.port}`);
    expect(JSON.parse(checked.hits[0]!.body).data.type).toBe('webhook-events');
    expect(dns.questions.filter((question) => question.type === 'A')).toHaveLength(1);
    expect(dns.questions.filter((question) => question.type === 'AAAA')).toHaveLength(1);
  });

  it('each delivery resolves afresh: no connection pinned for one delivery serves the next', async () => {
    const { checked, other } = await twoReceivers();
    script = rebinding('hooks.rebind.test', ['127.0.0.2'], ['127.0.0.1']);
    expect(await deliver(`http://hooks.rebind.test:${checked.port}/in`)).toEqual({ code: 200, body: 'checked' });
    expect(await deliver(`http://hooks.rebind.test:${checked.port}/in`)).toEqual({ code: 200, body: 'other' });
    expect([checked.hits.length, other.hits.length]).toEqual([1, 1]);
  });

  it('a name with several addresses: every one judged, only those connected to (the next one when the first refuses)', async () => {
    const { checked, other } = await twoReceivers();
    // Nothing listens on 127.0.0.3 at that port: the connection moves on to the next checked address.
    script = rebinding('hooks.many.test', ['127.0.0.3', '127.0.0.2'], ['127.0.0.1']);
    expect(await deliver(`http://hooks.many.test:${checked.port}/in`)).toEqual({ code: 200, body: 'checked' });
    expect(other.hits).toEqual([]);

    process.env.ALLOW_PRIVATE_WEBHOOK_TARGETS = 'false';
    script = rebinding('hooks.mixed.test', ['93.184.216.34', '127.0.0.2'], ['93.184.216.34']);
    const refused = await deliver(`https://hooks.mixed.test:${checked.port}/in`);
    expect(refused).toEqual({ code: null, body: expect.stringMatching(/^Refused: hooks\.mixed\.test resolves to 127\.0\.0\.2/) });
    expect(checked.hits).toHaveLength(1);
  });

  it('a refused address is refused, and nothing is sent', async () => {
    process.env.ALLOW_PRIVATE_WEBHOOK_TARGETS = 'false';
    const { checked, other } = await twoReceivers();
    script = rebinding('hooks.rebind.test', ['127.0.0.2'], ['127.0.0.1']);
    expect(await deliver(`https://hooks.rebind.test:${checked.port}/in`)).toEqual({
      code: null,
      body: expect.stringMatching(/^Refused: hooks\.rebind\.test resolves to 127\.0\.0\.2/),
    });
    expect(await deliver(`https://127.0.0.2:${checked.port}/in`)).toMatchObject({ code: null, body: expect.stringMatching(/^Refused: /) });
    expect([checked.hits.length, other.hits.length]).toEqual([0, 0]);
  });

  it('a name the server does not know: the attempt fails with the reason, nothing is sent', async () => {
    const answer = await deliver('http://hooks.unknown.test:9/in');
    expect(answer).toEqual({ code: null, body: expect.stringMatching(/^Could not resolve hooks\.unknown\.test: .*ENOTFOUND/) });
  });
});

describe('addresses without a lookup, and IPv6', () => {
  it('an IP literal is connected to as it is: no question asked', async () => {
    const { checked, other } = await twoReceivers();
    expect(await deliver(`http://127.0.0.2:${checked.port}/in`)).toEqual({ code: 200, body: 'checked' });
    expect(checked.hits[0]!.headers.host).toBe(`127.0.0.2:${checked.port}`);
    const six = await receiver('::1', 'six');
    expect(await deliver(`http://[::1]:${six.port}/in`)).toEqual({ code: 200, body: 'six' });
    expect(six.hits[0]!.headers.host).toBe(`[::1]:${six.port}`);
    expect(other.hits).toEqual([]);
    expect(dns.questions).toEqual([]);
  });

  it('a name with only an IPv6 address (AAAA) is reached over IPv6', async () => {
    const six = await receiver('::1', 'six');
    script = (name, type) => (name === 'hooks.six.test' ? (type === 'AAAA' ? ['::1'] : []) : undefined);
    expect(await deliver(`http://hooks.six.test:${six.port}/in`)).toEqual({ code: 200, body: 'six' });
    expect(six.hits[0]!.headers.host).toBe(`hooks.six.test:${six.port}`);
  });
});

describe('the answer', () => {
  /** A server on 127.0.0.2 that answers with `respond`, and records when each connection closes. */
  async function rawReceiver(respond: (response: import('node:http').ServerResponse) => void) {
    const closed: boolean[] = [];
    const server = createHttpServer((request, response) => {
      const index = closed.push(false) - 1;
      request.socket.on('close', () => (closed[index] = true));
      request.resume().on('end', () => respond(response));
    });
    const port = await listen(server, '127.0.0.2', 0);
    closing.push(
      () =>
        new Promise<void>((resolveClose) => {
          server.closeAllConnections();
          server.close(() => resolveClose());
        }),
    );
    return { port, closed };
  }

  it('a redirect is not followed: its status is the answer', async () => {
    const { other } = await twoReceivers();
    const redirecting = await rawReceiver((response) => response.writeHead(302, { location: `http://127.0.0.1:${other.port}/in` }).end());
    expect(await deliver(`http://127.0.0.2:${redirecting.port}/in`)).toEqual({ code: 302, body: '' });
    expect(other.hits).toEqual([]);
  });

  it('a body that never ends: the first 2 KB are kept and the connection is closed', async () => {
    const endless = await rawReceiver((response) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      const more = () => {
        while (!response.destroyed && response.write('é'.repeat(1000)));
      };
      response.on('drain', more);
      more();
    });
    expect(await deliver(`http://127.0.0.2:${endless.port}/in`)).toEqual({ code: 500, body: 'é'.repeat(RESPONSE_BODY_MAX) });
    await expect.poll(() => endless.closed).toEqual([true]);
  });

  it('no answer before the signal: the request fails and its connection is closed', async () => {
    const silent = await rawReceiver(() => {});
    const request = postPinned(new URL(`http://hooks.silent.test:${silent.port}/in`), ['127.0.0.2'], {
      headers: {},
      body: '{}',
      signal: AbortSignal.timeout(200),
      maxBodyBytes: 100,
    });
    await expect(request).rejects.toMatchObject({ name: 'AbortError' });
    await expect.poll(() => silent.closed).toEqual([true]);
  });
});

describe('https to a pinned address', () => {
  const key = readFileSync(resolve(TLS, 'hooks.tls.test.key'));
  const cert = readFileSync(resolve(TLS, 'hooks.tls.test.pem'));

  /** An https server on 127.0.0.2 with the certificate for hooks.tls.test, recording the SNI it is sent. */
  async function tlsReceiver() {
    const names: (string | undefined)[] = [];
    const hosts: (string | undefined)[] = [];
    const context = createSecureContext({ key, cert });
    const server = createTlsServer(
      {
        key,
        cert,
        SNICallback: (servername, callback) => {
          names.push(servername);
          callback(null, context);
        },
      },
      (request, response) => {
        hosts.push(request.headers.host);
        request.resume().on('end', () => response.writeHead(200).end('secure'));
      },
    );
    // A ClientHello without SNI never calls SNICallback: record it too.
    server.on('secureConnection', (socket) => {
      if (!(socket as unknown as { servername?: string | false }).servername) names.push(undefined);
    });
    const port = await listen(server, '127.0.0.2', 0);
    closing.push(() => new Promise<void>((resolveClose) => server.close(() => resolveClose())));
    return { port, names, hosts };
  }

  /** The POST made in a process of its own that trusts the test CA, with this test's resolver. */
  async function deliverTrusting(url: string) {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', resolve(ROOT, 'test/support/fixtures/deliver-once.ts'), url],
      {
        cwd: ROOT,
        env: { ...process.env, NODE_EXTRA_CA_CERTS: resolve(TLS, 'ca.pem') },
      },
    );
    return JSON.parse(stdout);
  }

  it('the certificate is verified against the host name: SNI and Host are the name, and a certificate for another name fails', async () => {
    const server = await tlsReceiver();
    script = (name, type) => (['hooks.tls.test', 'other.tls.test'].includes(name) ? (type === 'A' ? ['127.0.0.2'] : []) : undefined);
    expect(await deliverTrusting(`https://hooks.tls.test:${server.port}/in`)).toEqual({ code: 200, body: 'secure' });
    expect(server.names).toEqual(['hooks.tls.test']);
    expect(server.hosts).toEqual([`hooks.tls.test:${server.port}`]);
    // The same address under another name: its certificate does not name it.
    expect(await deliverTrusting(`https://other.tls.test:${server.port}/in`)).toEqual({
      code: null,
      body: 'The request failed: ERR_TLS_CERT_ALTNAME_INVALID',
    });
    expect(server.hosts).toHaveLength(1);
  });

  it('a certificate from an authority not trusted fails the attempt', async () => {
    const server = await tlsReceiver();
    script = (name, type) => (name === 'hooks.tls.test' ? (type === 'A' ? ['127.0.0.2'] : []) : undefined);
    expect(await deliver(`https://hooks.tls.test:${server.port}/in`)).toEqual({
      code: null,
      body: 'The request failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
    expect(server.names).toEqual(['hooks.tls.test']);
    expect(server.hosts).toEqual([]);
  });
});
