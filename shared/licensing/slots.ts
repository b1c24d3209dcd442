/**
 * The parent collections of the licensing graph's records, as each entity.ts declares them: a
 * record names its parents (`owner`), and its place among them is its GSI (the first GSI2, the
 * next GSI3...): a license is in its policy's (GSI2), its product's (GSI3) and its owner's (GSI4)
 * collections.
 */
import { COMPONENT_PARENTS } from '../resources/components/entity.ts';
import { LICENSE_PARENTS } from '../resources/licenses/entity.ts';
import { MACHINE_PARENTS } from '../resources/machines/entity.ts';
import { POLICY_PARENTS } from '../resources/policies/entity.ts';
import { PROCESS_PARENTS } from '../resources/processes/entity.ts';
import type { RecordType } from '../store/keys.ts';

export const PARENTS = {
  policies: POLICY_PARENTS,
  licenses: LICENSE_PARENTS,
  machines: MACHINE_PARENTS,
  components: COMPONENT_PARENTS,
  processes: PROCESS_PARENTS,
} as const satisfies Partial<Record<RecordType, Record<string, RecordType>>>;

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
export const childrenOf = <T extends Child>(type: T, parent: ParentName<T>) => ({ type, slot: slotOf(type, parent) });

/** The ids of a new record's parents by name, as the positional list its create takes (undefined: none of that name). */
export const parentsOf = <T extends Child>(type: T, ids: Record<ParentName<T>, string | null | undefined>) =>
  (Object.keys(PARENTS[type]) as ParentName<T>[]).map((name) => {
    const id = ids[name];
    return id ? { type: typeOf(type, name), id } : undefined;
  });
