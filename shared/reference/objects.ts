/**
 * What the resource objects' schemas are made of (each resource's schema.ts): the pieces the
 * description names once (`#/components/schemas/<id>`) and the shapes every resource object
 * shares. shared/reference/resources.ts gathers the resources' schemas; only the reference's
 * generator and the tests that check answers against it load them, never a function.
 */
import * as z from 'zod/mini';
import type { ResourceType, ServedTypes } from '../http/declaration.ts';
import type { manifest } from '../resources/manifest.ts';
import { KEY_SCHEMES } from '../resources/policies/entity.ts';

/** A resource object's schema and its name in the description. */
export interface ResourceObject {
  name: string;
  schema: z.ZodMiniType;
}

/** What a resource's schema.ts exports: the resource object of each JSON:API type it serves. */
export type SchemasOf<N extends keyof typeof manifest> = { readonly [T in ServedTypes<N>]: ResourceObject };

/**
 * The schemas the description names (`#/components/schemas/<id>`): the resource objects and the
 * pieces they share. (Descriptions go with `z.describe`, which zod's conversion reads.)
 */
export const namedSchemas = z.registry<{ id: string }>();

export function named<S extends z.ZodMiniType>(id: string, schema: S): S {
  namedSchemas.add(schema, { id });
  return schema;
}

/** Every member of a union of string literals, checked complete at compile time. */
export const every =
  <T extends string>() =>
  <const V extends readonly T[]>(values: V & ([T] extends [V[number]] ? unknown : never)) =>
    z.enum(values);

export const Id = named('Id', z.uuid());
export const Timestamp = named('Timestamp', z.iso.datetime().check(z.describe('An ISO 8601 time in UTC')));
/** Set by the service alone: a create or an update that names it is refused (unpermitted parameter). */
export const LastCheckOut = named(
  'LastCheckOut',
  z.nullable(Timestamp).check(z.describe('When the record was last checked out (docs/rules.md §20.5); null before the first. Read-only')),
);
export const Metadata = named(
  'Metadata',
  z.record(z.string(), z.unknown()).check(z.describe('Free-form metadata: any JSON object, as sent')),
);

export const identifier = <T extends ResourceType>(type: T) => z.strictObject({ type: z.literal(type), id: Id });
export const Related = named('RelatedLinks', z.strictObject({ related: z.string() }));
export const SelfLinks = named('SelfLinks', z.strictObject({ self: z.string() }));

export const EmptyToOne = named('EmptyToOne', z.strictObject({ data: z.null() }));
/** A related record named by id, with its own path as link; `{data: null}` when there is none. */
export const toOne = <T extends ResourceType>(type: T) => z.union([z.strictObject({ links: Related, data: identifier(type) }), EmptyToOne]);
/** A to-one relationship served under the record's own path (`/components/<id>/machine`). */
export const nestedOne = <T extends ResourceType>(type: T) => z.strictObject({ links: Related, data: z.nullable(identifier(type)) });
/** A to-many relationship served under the record's own path (`/users/<id>/tokens`): a link only. */
export const nested = z.strictObject({ links: Related });
export const account = z.strictObject({ links: Related, data: identifier('accounts') });
export const environment = toOne('environments');

/** A policy's key scheme, which its licenses keep. */
export const KeyScheme = named(
  'KeyScheme',
  z
    .nullable(z.enum(KEY_SCHEMES))
    .check(
      z.describe(
        "How license keys are made: null, random (or as given); ED25519_SIGN, `key/<dataset>.<signature>` signed with the account's Ed25519 key (docs/rules.md §18.2)",
      ),
    ),
);

export function resource<T extends ResourceType, A extends z.core.$ZodLooseShape, R extends z.core.$ZodLooseShape>(
  name: string,
  type: T,
  attributes: A,
  relationships: R,
  meta?: z.ZodMiniType,
): ResourceObject {
  return {
    name,
    schema: z.strictObject({
      id: Id,
      type: z.literal(type),
      attributes: z.strictObject({ ...attributes, created: Timestamp, updated: Timestamp }),
      relationships: z.strictObject(relationships),
      links: SelfLinks,
      ...(meta ? { meta } : {}),
    }),
  };
}

/** A related record that is always there: its identifier, with its own path as link. */
export const linked = <T extends ResourceType>(type: T) => z.strictObject({ links: Related, data: identifier(type) });
