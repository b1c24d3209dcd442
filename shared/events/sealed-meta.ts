/**
 * Making and opening the secrets of an event's meta (secret-meta.ts says what they are) with
 * the service's sealing key: imported by what makes secrets (the password-reset worker) and by
 * the delivery worker, which puts them back into what it POSTs.
 */
import { seal, unseal } from '../auth/seal.ts';
import { contextOf, type EventIdentity, type EventMeta, Secret } from './secret-meta.ts';

/** Marks a meta value as secret: delivered, never stored or shown in clear. */
export const secret = (value: unknown): unknown => new Secret(value, seal);

/**
 * The payload as delivered: the stored one with its filtered meta values replaced by the
 * sealed ones. Only the trailing `"meta"` member is rewritten (the payload is `{data, meta}`
 * serialised, meta last): the data goes out byte for byte as stored.
 */
export async function deliveredPayload(event: EventIdentity & { payload: string; sealedMeta?: string }): Promise<string> {
  if (!event.sealedMeta) return event.payload;
  const secrets = JSON.parse(await unseal(event.sealedMeta, contextOf(event))) as EventMeta;
  const { meta } = JSON.parse(event.payload) as { meta?: EventMeta };
  const stored = `,"meta":${JSON.stringify(meta)}}`;
  if (!meta || !event.payload.endsWith(stored)) throw new Error('The payload does not end with the meta its sealed values belong to');
  return `${event.payload.slice(0, -stored.length)},"meta":${JSON.stringify({ ...meta, ...secrets })}}`;
}
