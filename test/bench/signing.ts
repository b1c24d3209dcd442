/**
 * What signing answers (shared/http/signature.ts) adds to a request: the CPU of one signed
 * answer (the digest of the body, the signing string, the Ed25519 signature), measured in this
 * process over many answers, against the CPU this process spends per `GET a component` under
 * load; and the DynamoDB requests, which signing must not add to (the key rides on the account
 * item every request reads).
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { SIGNING_KEY_ATTRIBUTE, type StoredSigningKey, signingKeyOf } from '#shared/auth/signing-key.ts';
import { bodyDigest, signAnswer, signingString } from '#shared/http/signature.ts';
import { db, getTable } from '#shared/store/client.ts';
import { accountKey } from '#shared/store/keys.ts';
import { getItem } from '#shared/store/records.ts';
import { load as fairLoad, startApi, withCpu } from './fair/processes.ts';
import type { Measurement, Section } from './report.ts';
import { type BenchContext, benchAccount, client, componentBody, fmt, installMeter, licensingGraph, metered, must } from './support.ts';
import { demoGraph } from './throughput.ts';

const SIGNED_ANSWERS = Number(process.env.BENCH_SIGNED_ANSWERS ?? 20_000);
const GET_SECONDS = Number(process.env.BENCH_DURATION_SECONDS ?? 10);
const CONNECTIONS = 10;
/** Signing may cost at most this share of a GET's CPU, so GET throughput falls by at most as much. */
const BUDGET = 0.1;

/** CPU microseconds (user + system) of this process per run of `action`, after a warm-up. */
async function cpuPer(runs: number, action: () => unknown): Promise<number> {
  for (let i = 0; i < Math.min(1_000, runs / 10); i++) await action();
  const start = process.cpuUsage();
  for (let i = 0; i < runs; i++) await action();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / runs;
}

/**
 * The API's CPU per GET of a component, measured as the throughput section measures it: the API
 * as `npm start` runs it in a process of its own, autocannon in another, the API's CPU read from /proc.
 */
async function apiCpuPerGet(): Promise<{ ok: number; cpuMicros: number }> {
  const api = await startApi();
  try {
    const { get } = await demoGraph(api);
    await fairLoad({ ...get, connections: CONNECTIONS, seconds: 2 }); // warm-up
    const { result, cpu } = await withCpu([api.pid], () => fairLoad({ ...get, connections: CONNECTIONS, seconds: GET_SECONDS }));
    if (result.failed > 0) throw new Error(`${result.failed} of ${result.requests} GETs failed`);
    return { ok: result.requests, cpuMicros: (cpu[0] ?? 0) * 1e6 };
  } finally {
    await api.stop();
  }
}

const describe = (tally: { requests: number; byCommand: Record<string, number> }) =>
  `${tally.requests} (${Object.entries(tally.byCommand)
    .map(([name, n]) => `${name.replace(/Command$/, '')}${n > 1 ? ` ×${n}` : ''}`)
    .join(', ')})`;

export async function signingSection(context: BenchContext): Promise<Section> {
  installMeter();
  const account = await benchAccount();
  const call = client(context.stack, account);
  const graph = await licensingGraph(call);
  const component = await must(call('POST', '/components', componentBody(graph.machine.id)), 'component');
  const path = `/v1/accounts/${account.id}/components/${component.id}`;
  const url = `${context.stack.api}${path}`;
  const headers = { authorization: `Bearer ${account.token}`, accept: 'application/vnd.api+json' };

  // The answer signed is the API's own answer to GET a component.
  const body = await (await fetch(url, { headers })).text();
  const item = await getItem(accountKey(account.id));
  const signer = { id: account.id, signingKey: item?.[SIGNING_KEY_ATTRIBUTE] as StoredSigningKey };
  const event = {
    rawPath: path,
    rawQueryString: '',
    headers: { host: new URL(url).host },
    requestContext: { http: { method: 'GET' } },
  } as unknown as APIGatewayProxyEventV2;
  const answer = { statusCode: 200, headers: { 'Content-Type': 'application/vnd.api+json' }, body };
  const key = await signingKeyOf(signer);
  const bytes = Buffer.from(body);
  const message = signingString({
    method: 'GET',
    path,
    query: '',
    host: event.headers.host ?? '',
    date: new Date().toUTCString(),
    digest: bodyDigest(bytes),
  });

  const signedAnswer = await cpuPer(SIGNED_ANSWERS, () => signAnswer(answer, event, signer));
  const digestOnly = await cpuPer(SIGNED_ANSWERS, () => bodyDigest(bytes));
  const signatureOnly = await cpuPer(SIGNED_ANSWERS, () => key.sign(message));

  const measured = await apiCpuPerGet();
  const perGet = measured.cpuMicros / measured.ok;
  const share = signedAnswer / perGet;

  const signedGet = await metered(() => call('GET', `/components/${component.id}`));

  // An account made before keys existed: its first request writes the key, once.
  const keyless = await benchAccount();
  await db().send(
    new UpdateCommand({
      TableName: getTable(),
      Key: accountKey(keyless.id),
      UpdateExpression: 'REMOVE #key',
      ExpressionAttributeNames: { '#key': SIGNING_KEY_ATTRIBUTE },
    }),
  );
  const keylessCall = client(context.stack, keyless);
  const firstUse = await metered(() => keylessCall('GET', '/products'));
  const afterwards = await metered(() => keylessCall('GET', '/products'));

  const rows: Measurement[] = [
    {
      what: `CPU per signed answer (GET a component, ${fmt(bytes.length)}-byte body)`,
      figure: `${fmt(signedAnswer, 1)} µs (digest ${fmt(digestOnly, 1)} µs, Ed25519 signature ${fmt(signatureOnly, 1)} µs; mean of ${fmt(SIGNED_ANSWERS)})`,
      budget: 'context',
    },
    {
      what: 'CPU of the API per GET a component, signed',
      figure: `${fmt(perGet, 0)} µs (${fmt(measured.ok)} GETs, ${CONNECTIONS} connections)`,
      budget: 'context',
    },
    {
      what: 'Signing as a share of a GET’s CPU (the GET throughput it costs)',
      figure: `${fmt(share * 100, 1)} %`,
      budget: `≤ ${fmt(BUDGET * 100)} %`,
      met: share <= BUDGET,
    },
    {
      what: 'DynamoDB requests of GET a component, signed',
      figure: describe(signedGet.tally),
      budget: '1, as without signing (round-trip section)',
      met: signedGet.result.status === 200 && signedGet.tally.requests === 1,
    },
    {
      what: 'An account without a key: its first request, then the next',
      figure: `${describe(firstUse.tally)}, then ${describe(afterwards.tally)}`,
      budget: 'one UpdateItem once, then as without signing',
      met:
        firstUse.result.status === 200 &&
        afterwards.result.status === 200 &&
        firstUse.tally.byCommand.UpdateItemCommand === 1 &&
        firstUse.tally.requests === afterwards.tally.requests + 1 &&
        afterwards.tally.byCommand.UpdateItemCommand === undefined,
    },
  ];
  return {
    title: 'Signed answers',
    method: `Signing is measured in this process: \`signAnswer\` (shared/http/signature.ts) over the API's own answer to GET a component, with the account's key already unsealed (once per container), ${fmt(SIGNED_ANSWERS)} times after a warm-up, by \`process.cpuUsage()\`; the digest and the signature alone likewise. The API's CPU per GET is measured as in the throughput section: the API as \`npm start\` runs it in a process of its own, GETs of one component for ${GET_SECONDS} s (as the admin, ${CONNECTIONS} connections) from autocannon in another after a warm-up, the API process's CPU read from /proc divided by the GETs answered: the pipeline, the SDK's request to DynamoDB Local and the HTTP server, signing included; DynamoDB Local's own CPU (another process) is not counted. DynamoDB requests are counted as in the round-trip section.`,
    rows,
    notes: [
      `The share is of the API process's CPU, which is what bounds a Lambda function's throughput; counting DynamoDB Local's CPU too (another process here, a service on AWS) it would be smaller still. An Ed25519 signature costs the same whatever the answer's size; the digest grows with the body (SHA-256, ${fmt(digestOnly / (bytes.length / 1024), 1)} µs a kilobyte here): a page of 100 such records, about ${fmt((100 * bytes.length) / 1024)} KB, adds about ${fmt((100 * digestOnly) / 1000, 1)} ms, against a list's own CPU, which grows with its records too.`,
      `No request gains a DynamoDB request: the key (public half and sealed private half, ${fmt(JSON.stringify(signer.signingKey).length)} bytes) is an attribute of the account item, which every request reads in its first BatchGetItem anyway; a container unseals it once (deployed, one KMS Decrypt per data key it has not seen yet) and keeps it. Only an account made before keys existed pays one conditional UpdateItem, on its first request, in one container: a container racing it loses the condition and reads the winner's key (one GetItem).`,
    ].join('\n'),
  };
}
