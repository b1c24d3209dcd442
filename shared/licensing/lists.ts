/**
 * Filtered lists of the licensing graph. Every filter names a parent collection the records
 * join (a GSI partition), so a list reads one partition: the most selective filter given is
 * the partition, the others are conditions over that partition only (never over a whole type),
 * and a bearer's own restriction (a user's owner partition, a product's or a license's) is one
 * more such filter. Nothing ever reads the whole account to answer a filtered list.
 */

import type { AccessPattern } from '../store/data-model.ts';
import { emptyPage, type ListOptions, listCollection, type Page, type PageRequest, type Pointers } from '../store/paging.ts';
import type { RecordOf } from '../store/records.ts';
import type { Scope } from '../store/scope.ts';
import { type Child, type ParentName, parentIn } from './slots.ts';

export interface Filter<T extends Child> {
  /** The names that set it (query parameters, e.g. `owner` and `user`). */
  params: readonly string[];
  /** The parent collection serving it, by the name the record gives that parent: it compares the record's `<parent>Id`. */
  parent: ParentName<T>;
}

/** The record attribute naming a parent (`owner` → `ownerId`). */
const attributeOf = (filter: { parent: string }) => `${filter.parent}Id`;

/** The filters' values given, by name (ids, lower-cased); the query's, parsed at the edge. */
export type FilterValues = Readonly<Record<string, string | undefined>>;

/**
 * Lists `type` under the filter values given and the `forced` conditions (bearer restrictions,
 * the record of a relationship route). `filters` are in order of selectivity, most selective
 * first. Contradicting values (owner=a&user=b, or a filter outside the bearer's reach) match
 * nothing.
 */
export async function filteredList<K extends Child>(
  scope: Scope,
  type: K,
  filters: readonly Filter<K>[],
  given: FilterValues,
  forced: readonly Record<string, string>[],
  page: PageRequest,
  options: ListOptions & {
    /** Records standing for others in a partition's stead too (a user's attachments for its licenses), by the partition's parent. */
    pointers?: Partial<Record<ParentName<K>, (id: string) => Pointers>>;
  } = {},
): Promise<Page<RecordOf<K>>> {
  const values: Record<string, string> = {};
  let contradiction = false;
  const set = (attribute: string, value: string) => {
    if (values[attribute] !== undefined && values[attribute] !== value) contradiction = true;
    values[attribute] = value;
  };
  for (const filter of filters) {
    for (const param of filter.params) {
      const value = given[param];
      if (value !== undefined) set(attributeOf(filter), value);
    }
  }
  for (const conditions of forced) for (const [attribute, value] of Object.entries(conditions)) set(attribute, value);
  if (contradiction) return emptyPage<RecordOf<K>>(page);

  // The partition is the most selective filter given; the other values are conditions within it.
  for (const partition of filters) {
    const { [attributeOf(partition)]: id, ...where } = values;
    if (id === undefined) continue;
    const pointers = options.pointers?.[partition.parent]?.(id);
    return listCollection(
      scope,
      { type, parent: parentIn(type, partition.parent, id), where, ...(pointers ? { pointers } : {}) },
      page,
      options,
    );
  }
  return listCollection(scope, { type }, page, options);
}

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 31,
    name: 'Filters combined (AND)',
    operation: 'Query (backwards) + FilterExpression; count by Query `Select: COUNT` with the same filter',
    index: "the most selective given filter's index (machine > license > owner > product)",
    key: 'that one partition; the other filters as conditions',
    usedBy: 'every filtered list with two or more conditions',
    tests: ['store/data-model', 'http/components'],
  },
  {
    n: 32,
    name: 'Licenses by policy / product / owner; policies by product; machines by license / product / owner',
    operation: 'Query (backwards)',
    index: 'GSI2/3/4 per the slot table',
    key: '`…#<PARENT>#<id>#<TYPE>`',
    usedBy:
      '`?policy=`, `?product=`, `?owner=`, `?license=`, `/licenses/<id>/machines`, `/users/<id>/licenses`, `/users/<id>/machines`, cascades',
    tests: ['store/data-model'],
  },
];
