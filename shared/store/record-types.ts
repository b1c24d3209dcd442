/**
 * The record each type stores: what a typed read of a type returns (`RecordOf<'licenses'>` is a
 * LicenseRecord). Each record interface is declared by its resource's entity.ts and named by the
 * manifest's `stores` (shared/resources/manifest.ts); this derives the map, for the type system
 * alone (nothing here runs, so the store does not load the manifest).
 */
import type { manifest, Stored } from '../resources/manifest.ts';
import type { RecordType } from './keys.ts';
import type { StoredRecord } from './records.ts';

type Entry = (typeof manifest)[keyof typeof manifest];
type StoresOf<E> = E extends { stores: infer S } ? S : never;
type Merged<U> = (U extends unknown ? (each: U) => void : never) extends (each: infer I) => void ? I : never;
type Declared = Merged<StoresOf<Entry>>;

/** The record of each type a resource stores, by type. */
export type RecordTypes = { [T in keyof Declared]: Declared[T] extends Stored<infer R> ? R : never };

/** The record of `type` (`webhook-kinds` names no record of its own: any record). */
export type RecordOf<K extends RecordType> = K extends keyof RecordTypes ? RecordTypes[K] : StoredRecord;
