/**
 * What validate-key read after a key's marker the last time this container validated that key
 * with that scope. The next such validation names those keys to the pipeline beside the marker,
 * so everything comes in the request's one BatchGetItem: one DynamoDB request rather than two
 * (docs/data-model.md, pattern 54). Installed copies validate the same key with the same scope
 * again and again.
 *
 * The marker read in that request still decides which license it is, and what the validation
 * reads is named from it afresh: keys read ahead for a license the marker no longer names go
 * unused (half a read unit each, no request), and the validation reads what it needs as it would
 * have. So nothing read ahead can stand in for another license's data.
 */
import type { Key } from '../../store/keys.ts';

/** Validations remembered per container, the oldest forgotten first. */
const REMEMBERED = 1000;
/** A scope longer than this as JSON is not remembered (a cache key of its own size). */
const SCOPE_TEXT_MAX = 512;
/** Nor are reads of more keys (a scope naming many components). */
const KEYS_MAX = 50;

const remembered = new Map<string, readonly Key[]>();

/**
 * The scope as text, its members in name order, so the same scope gives the same text however it
 * was written; undefined when it is not remembered: too long, or not of a scope's shape (members
 * that are text, lists of text or null), as the body is read before it is checked.
 */
function scopeText(scope: unknown): string | undefined {
  if (scope === undefined || scope === null) return 'null';
  if (typeof scope !== 'object' || Array.isArray(scope)) return undefined;
  const members: string[] = [];
  for (const [name, value] of Object.entries(scope).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (value === undefined) continue;
    const flat = value === null || typeof value === 'string' || (Array.isArray(value) && value.every((v) => typeof v === 'string'));
    if (!flat) return undefined;
    members.push(`${JSON.stringify(name)}:${JSON.stringify(value)}`);
  }
  const text = `{${members.join(',')}}`;
  return text.length <= SCOPE_TEXT_MAX ? text : undefined;
}

const nameOf = (markerPK: string, scope: unknown): string | undefined => {
  const text = scopeText(scope);
  return text === undefined ? undefined : `${markerPK}\u0000${text}`;
};

/** The keys the last validation of the key whose marker is `markerPK`, with `scope`, read after the marker; none if not met. */
export function readsBefore(markerPK: string, scope: unknown): readonly Key[] {
  const name = nameOf(markerPK, scope);
  return (name !== undefined && remembered.get(name)) || [];
}

/** Remembers what a validation of the key whose marker is `markerPK`, with `scope`, read after the marker. */
export function rememberReads(markerPK: string, scope: unknown, keys: readonly Key[]): void {
  const name = nameOf(markerPK, scope);
  if (name === undefined) return;
  remembered.delete(name);
  if (keys.length > KEYS_MAX) return;
  remembered.set(name, keys);
  if (remembered.size > REMEMBERED) remembered.delete(remembered.keys().next().value as string);
}
