/**
 * The bare limit, in a process of its own: a plain node:http server that answers every request
 * with one consistent GetItem of one item (BARE_KEY, JSON) against the API's DynamoDB Local, and
 * nothing else. Started by the throughput section (processes.ts), which reads the port from the
 * first line it prints.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

const endpoint = process.env.BARE_DYNAMODB_ENDPOINT;
const table = process.env.BARE_TABLE;
const key = JSON.parse(process.env.BARE_KEY ?? 'null');
if (!endpoint || !table || !key) throw new Error('BARE_DYNAMODB_ENDPOINT, BARE_TABLE and BARE_KEY are required');

const db = DynamoDBDocumentClient.from(
  new DynamoDBClient({
    endpoint,
    region: process.env.AWS_REGION ?? 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  }),
);

const server = createServer((request, response) => {
  request.resume();
  db.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))
    .then(({ Item }) => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Item)))
    .catch((error) => response.writeHead(500).end(String(error)));
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`BARE_READY ${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
