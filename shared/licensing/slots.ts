/**
 * The parent collections of the licensing graph's records, as each entity.ts declares them: a
 * record names its parents (`owner`), and its place among them is its GSI (the first GSI2, the
 * next GSI3...): a license is in its policy's (GSI2), its product's (GSI3) and its owner's (GSI4)
 * collections.
 */
import { manifest } from '../resources/manifest.ts';
import type { RecordType } from '../store/keys.ts';

type Manifest = typeof manifest;
type ParentsOf<R> = R extends { parents: infer P } ? P : never;
type Declared = { [K in keyof Manifest as ParentsOf<Manifest[K]> extends never ? never : K]: ParentsOf<Manifest[K]> };

/** Each record type's parents, as the manifest's resources declare them. */
export const PARENTS = Object.fromEntries(
  Object.entries(manifest).flatMap(([type, resource]) => ('parents' in resource ? [[type, resource.parents]] : [])),
) as Declared;

/** A type of the graph that has parents. */
export type Child = keyof typeof PARENTS;
/** The name a child gives one of its parents (`owner`). */
export type ParentName<T extends Child> = keyof (typeof PARENTS)[T] & string;

/** The slot of a parent (slot i = GSI(i+2)): its place in the child's declaration. */
export function slotOf<T extends Child>(type: T, parent: ParentName<T>): number {
  return Object.keys(PARENTS[type]).indexOf(parent);
}

/** The type of a child's parent of that name. */
const typeOf = <T extends Child>(type: T, parent: ParentName<T>): RecordType =>
  (PARENTS[type] as Record<string, RecordType>)[parent] as RecordType;

/** The collection of `type` under the parent it calls `parent`, record `id`: what a list or a child read names. */
export const parentIn = <T extends Child>(type: T, parent: ParentName<T>, id: string) => ({
  type: typeOf(type, parent),
  id,
  slot: slotOf(type, parent),
});

/** A child's collections under the parent it calls `parent`, whichever record that is (a removal's descendants). */
const childrenOf = <T extends Child>(type: T, parent: ParentName<T>) => ({ type, slot: slotOf(type, parent) });

/**
 * The collections of the records that name a record of `type` as a parent, in the manifest's
 * order, which lists a parent before its children (a test holds it): a removal walks them
 * reversed, deepest first.
 */
export const collectionsUnder = (type: RecordType): readonly { type: Child; slot: number }[] =>
  (Object.keys(PARENTS) as Child[]).flatMap((child) =>
    (Object.keys(PARENTS[child]) as ParentName<Child>[])
      .filter((name) => typeOf(child, name) === type)
      .map((name) => childrenOf(child, name)),
  );

/** The ids of a new record's parents by name, as the positional list its create takes (undefined: none of that name). */
export const parentsOf = <T extends Child>(type: T, ids: Record<ParentName<T>, string | null | undefined>) =>
  (Object.keys(PARENTS[type]) as ParentName<T>[]).map((name) => {
    const id = ids[name];
    return id ? { type: typeOf(type, name), id } : undefined;
  });
