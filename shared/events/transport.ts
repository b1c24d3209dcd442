/**
 * How a webhook POST reaches its endpoint (docs/rules.md §7.4): the host is resolved once and every
 * address judged (targets.ts), and the connection goes to those addresses and no others.
 * Letting the HTTP client resolve the name again would let a name that answers a public address
 * to the check and a private one to the connection (DNS rebinding) reach inside the network.
 *
 * Only the connection's address is pinned: the URL is unchanged, so the Host header is the URL's
 * host[:port] and, over https, the server name sent (SNI) and the name the certificate is
 * verified against are the host name.
 *
 * Node's own http/https client does the request: it never follows a redirect, verifies the
 * certificate by default, and takes the lookup to use in place of the system's.
 */
import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction, type TcpNetConnectOpts } from 'node:net';

/** What a POST answered: the status and the start of the body (at most the bytes asked for). */
export interface PinnedAnswer {
  status: number;
  body: Buffer;
}

export interface PinnedPost {
  headers: Record<string, string>;
  body: string;
  /** Ends the request, and the reading of its answer, when it aborts. */
  signal: AbortSignal;
  /** Stop reading the answer's body after this many bytes. */
  maxBodyBytes: number;
}

/**
 * POSTs to `url`, connecting to `addresses` (checked IP addresses) whatever the URL's host name.
 * Rejects when no answer comes (refused, unreachable, a certificate that does not verify, the
 * signal); once the status is in, a body cut short (or timed out) still gives what came.
 *
 * No agent: the connection is this request's own and closes with it. A connection kept alive
 * would carry these addresses into a later delivery to the same host, whose own lookup and check
 * may answer differently, and a fresh connection per POST costs little next to a webhook's rate.
 */
export function postPinned(url: URL, addresses: readonly string[], post: PinnedPost): Promise<PinnedAnswer> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  // The options reach the socket's connect, which takes autoSelectFamily too.
  const options: RequestOptions & Pick<TcpNetConnectOpts, 'autoSelectFamily'> = {
    method: 'POST',
    headers: { ...post.headers, 'content-length': String(Buffer.byteLength(post.body)) },
    signal: post.signal,
    agent: false,
    lookup: pinnedLookup(addresses),
    // Each checked address in turn (both families) until one takes the connection.
    autoSelectFamily: true,
  };
  return new Promise((resolve, reject) => {
    const outgoing = request(url, options, (answer) =>
      readStart(answer, post.maxBodyBytes).then((body) => {
        // Whatever was not read is not wanted: the connection closes now.
        outgoing.destroy();
        resolve({ status: answer.statusCode ?? 0, body });
      }),
    );
    outgoing.on('error', reject);
    outgoing.end(post.body);
  });
}

/** The first `max` bytes of an answer's body (fewer if it ends, fails or is aborted first). */
function readStart(answer: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => resolve(Buffer.concat(chunks).subarray(0, max));
    answer.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.byteLength;
      if (size >= max) done();
    });
    answer.on('end', done);
    answer.on('error', done);
    answer.on('close', done);
  });
}

/**
 * A lookup that answers `addresses` for any name, as the system's would a name's addresses. An
 * IP-literal host is connected to as it is: Node asks no lookup for it.
 */
function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const pinned = addresses.map((address) => ({ address, family: isIP(address) }));
  return (hostname, options, callback) => {
    const usable = pinned.filter((entry) => !options.family || entry.family === options.family);
    const [first] = usable;
    if (first === undefined) {
      const error: NodeJS.ErrnoException = new Error(`No checked address of ${hostname} for IPv${options.family}`);
      error.code = 'ENOTFOUND';
      return callback(error, '', 0);
    }
    if (options.all) return callback(null, usable);
    callback(null, first.address, first.family);
  };
}
