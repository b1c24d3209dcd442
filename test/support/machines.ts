/**
 * A machine's stored attributes written straight to the table, as a test moves time back (a ping
 * long ago, an older creation): on the machine's record and, for what its fingerprint's marker
 * carries of it (machineMarkerFacts: its creation and last heartbeat, which validation reads), on
 * the marker too, as every write of the service keeps the two in step.
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { machineMarkerKey } from '#shared/resources/machines/entity.ts';
import { db, getTable } from '#shared/store/client.ts';
import { type Key, recordKey } from '#shared/store/keys.ts';

const ON_MARKER = new Set(['created', 'lastHeartbeat']);

async function set(key: Key, values: Record<string, unknown>): Promise<void> {
  const names = Object.keys(values);
  if (names.length === 0) return;
  await db().send(
    new UpdateCommand({
      TableName: getTable(),
      Key: key,
      UpdateExpression: `SET ${names.map((_, i) => `#n${i} = :v${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#n${i}`, name])),
      ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:v${i}`, values[name]])),
      ConditionExpression: 'attribute_exists(PK)',
    }),
  );
}

/** Sets `values` on the machine's record, and those its marker carries on the marker. */
export async function storeMachine(accountId: string, machineId: string, values: Record<string, unknown>): Promise<void> {
  const key = recordKey(accountId, 'machines', machineId);
  const { Item: machine } = await db().send(new GetCommand({ TableName: getTable(), Key: key, ConsistentRead: true }));
  if (!machine) throw new Error(`no machine ${machineId}`);
  await set(key, values);
  const carried = Object.fromEntries(Object.entries(values).filter(([name]) => ON_MARKER.has(name)));
  await set(machineMarkerKey(accountId, machine.licenseId as string, machine.fingerprint as string), carried);
}
