/**
 * A tiny authoritative DNS server on loopback UDP, for the delivery worker's resolver setting
 * (WEBHOOK_DNS_SERVERS): it answers A and AAAA questions from a script that may change its answer
 * from one question to the next, and records every question it gets.
 *
 * `rebindingNames` is the script of the test run's local stack: its answers follow from the name
 * alone, so tests sharing that stack cannot disturb each other.
 */
import { createSocket } from 'node:dgram';
import { isIPv4, isIPv6 } from 'node:net';

export type RecordType = 'A' | 'AAAA';

/** The addresses to answer for the n-th question (1-based) of a name and type; undefined: no such name. */
export type Script = (name: string, type: RecordType, n: number) => string[] | undefined;

export interface DnsResponder {
  /** `127.0.0.1:<port>`, as WEBHOOK_DNS_SERVERS takes it. */
  server: string;
  questions: { name: string; type: RecordType }[];
  close(): Promise<void>;
}

const TYPES: Record<number, RecordType> = { 1: 'A', 28: 'AAAA' };
const CODES: Record<RecordType, number> = { A: 1, AAAA: 28 };

/** IPv6 text to its 16 bytes (no dotted tail needed here). */
function ipv6Bytes(address: string): Buffer {
  const [head, tail] = address.includes('::') ? address.split('::') : [address, ''];
  const groups = (part: string) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const front = groups(head!);
  const back = groups(tail!);
  const all = [...front, ...Array(8 - front.length - back.length).fill(0), ...back];
  const bytes = Buffer.alloc(16);
  for (const [i, group] of all.entries()) bytes.writeUInt16BE(group, i * 2);
  return bytes;
}

function answer(query: Buffer, script: Script, counts: Map<string, number>, questions: DnsResponder['questions']): Buffer | undefined {
  if (query.length < 12 || query.readUInt16BE(4) !== 1) return undefined;
  // The question: length-prefixed labels, then type and class.
  const labels: string[] = [];
  let offset = 12;
  while (offset < query.length && query[offset] !== 0) {
    labels.push(query.subarray(offset + 1, offset + 1 + query[offset]!).toString('ascii'));
    offset += 1 + query[offset]!;
  }
  offset += 1;
  const type = TYPES[query.readUInt16BE(offset)];
  const question = query.subarray(12, offset + 4);
  const name = labels.join('.').toLowerCase();
  if (!type) return undefined;
  questions.push({ name, type });
  const n = (counts.get(`${name} ${type}`) ?? 0) + 1;
  counts.set(`${name} ${type}`, n);
  const addresses = script(name, type, n);

  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0); // the question's id
  // QR, authoritative, recursion desired and available; NXDOMAIN when the name is unknown.
  header.writeUInt16BE(0x8580 | (addresses === undefined ? 3 : 0), 2);
  header.writeUInt16BE(1, 4);
  const records = (addresses ?? [])
    .filter((address) => (type === 'A' ? isIPv4(address) : isIPv6(address)))
    .map((address) => {
      const data = type === 'A' ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address);
      const record = Buffer.alloc(12);
      record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      record.writeUInt16BE(CODES[type], 2);
      record.writeUInt16BE(1, 4); // class IN
      record.writeUInt32BE(0, 6); // TTL 0: nothing to cache
      record.writeUInt16BE(data.length, 10);
      return Buffer.concat([record, data]);
    });
  header.writeUInt16BE(records.length, 6);
  return Buffer.concat([header, question, ...records]);
}

/** `127-0-0-2` to `127.0.0.2`, when it is an IPv4 address. */
const dashedIpv4 = (text: string) => {
  const address = text.replaceAll('-', '.');
  return isIPv4(address) ? address : undefined;
};

const REBINDING = /^rebind-(\d+-\d+-\d+-\d+)-(\d+-\d+-\d+-\d+)\.(?:[a-z0-9-]+\.)+test$/;

/**
 * `rebind-<first>-<later>.<anything>.test` (addresses dashed: 127-0-0-2) answers A=first to the
 * first question for that exact name and A=later to every other one, and has no AAAA; so a name
 * unique to a test is checked at its first question. `localhost` is this machine, as the hosts
 * file has it. Any other name does not exist.
 */
export const rebindingNames: Script = (name, type, n) => {
  if (name === 'localhost') return type === 'A' ? ['127.0.0.1'] : ['::1'];
  const match = REBINDING.exec(name);
  const first = match && dashedIpv4(match[1]!);
  const later = match && dashedIpv4(match[2]!);
  if (!first || !later) return undefined;
  if (type === 'AAAA') return [];
  return n === 1 ? [first] : [later];
};

/** A name that `rebindingNames` answers with `first`, then `later`; `unique` makes it the test's own. */
export const rebindingName = (first: string, later: string, unique: string) =>
  `rebind-${first.replaceAll('.', '-')}-${later.replaceAll('.', '-')}.${unique}.test`;

export async function startDnsResponder(script: Script): Promise<DnsResponder> {
  const socket = createSocket('udp4');
  const counts = new Map<string, number>();
  const questions: DnsResponder['questions'] = [];
  socket.on('message', (query, from) => {
    const reply = answer(query, script, counts, questions);
    if (reply) socket.send(reply, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    questions,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
