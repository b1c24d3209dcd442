/**
 * Every kind of webhook event the service emits: those its resources declare (each resource's
 * events.ts, listed by shared/resources/manifest.ts), what an endpoint may subscribe to besides
 * `*`. A change of a record is `<type>.created|updated|deleted` with the singular type; the
 * actions that are not plain changes (validations, check-outs, a license's lifecycle, attaching
 * and detaching entitlements, tokens, password resets, heartbeats) have kinds of their own.
 */
import { manifest } from '../resources/manifest.ts';

type Manifest = typeof manifest;
type EventsOf<R> = R extends { events: readonly (infer K)[] } ? K : never;

/** A kind of webhook event: a misspelt one is no EventKind. */
export type EventKind = EventsOf<Manifest[keyof Manifest]>;

let kinds: readonly EventKind[] | undefined;

/**
 * Read on first use rather than when this module loads: the manifest's resources import modules
 * that import this one.
 */
export function eventKinds(): readonly EventKind[] {
  kinds ??= Object.values(manifest).flatMap((resource): readonly EventKind[] => ('events' in resource ? resource.events : []));
  return kinds;
}

export const isEventKind = (value: string): value is EventKind => (eventKinds() as readonly string[]).includes(value);
