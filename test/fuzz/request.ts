/**
 * Turns a plan into the request sent: fills the placeholders with the fixtures' ids, names the
 * scope's environment and bearer, serializes the body (numbers and keys exactly as the mutation
 * wrote them) and applies the mutations in order.
 */
import { JSON_API, type RouteInfo, routeInfo } from './description.ts';
import type { Outgoing } from './http.ts';
import { type BodyMutation, Deep, Huge, type Mutation, RawJson, type RawMutation, Wide } from './mutations.ts';
import type { Plan } from './plan.ts';
import { ReceiverUrl, Ref, ScopeEnvironment } from './values.ts';
import { COLLECTIONS, type Scope, type World } from './world.ts';

export interface Built {
  plan: Plan;
  info: RouteInfo;
  request: Outgoing;
  /** The record the path names, and its collection, when it names one. */
  target?: { collection: string; id: string };
  /**
   * The credential and environment of the request when neither was mutated: what a document's
   * links must resolve with. Undefined when the request was sent as something else.
   */
  as?: { authorization: string; environment: string | undefined; scope: Scope };
}

const pickFrom = <T>(list: readonly T[] | undefined, pick: number): T | undefined => (list?.length ? list[pick % list.length] : undefined);

/** An id no record has, the same for the same pick. */
const absentId = (pick: number) => `00000000-0000-4000-8000-${pick.toString(16).padStart(12, '0').slice(-12)}`;

function recordId(world: World, scope: Scope, collection: string, pool: 'stable' | 'expendable', pick: number): string {
  return (
    pickFrom(scope[pool][collection], pick) ??
    (pool === 'stable' ? pickFrom(scope.expendable[collection], pick) : undefined) ??
    pickFrom(world.graveyard[collection], pick) ??
    absentId(pick)
  );
}

/** Not an instance of a class (the placeholders, the mutations' recipes). */
const isPlain = (value: object) => {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/** Placeholders filled, everything else copied: the tree the body mutations then work on. */
function resolve(value: unknown, world: World, scope: Scope): unknown {
  if (value instanceof Ref) {
    const all = [...(scope.stable[value.collection] ?? []), ...(scope.expendable[value.collection] ?? [])];
    return pickFrom(all, value.pick) ?? absentId(value.pick);
  }
  if (value instanceof ReceiverUrl) return world.receiverUrl;
  if (value instanceof ScopeEnvironment) return scope.environment?.code ?? null;
  if (Array.isArray(value)) return value.map((item) => resolve(item, world, scope));
  if (value && typeof value === 'object' && isPlain(value)) {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) define(copy, key, resolve((value as Record<string, unknown>)[key], world, scope));
    return copy;
  }
  return value;
}

/** Sets an own property, `__proto__` included. */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

// ---------------------------------------------------------------------------------------------
// Body mutations

type Path = (string | number)[];

function pathsOf(value: unknown, at: Path = [], into: Path[] = []): Path[] {
  if (value && typeof value === 'object' && (Array.isArray(value) || isPlain(value))) {
    for (const key of Array.isArray(value) ? value.keys() : Object.keys(value)) {
      const path = [...at, key];
      into.push(path);
      pathsOf((value as Record<string, unknown>)[key as string], path, into);
    }
  }
  return into;
}

const nodeAt = (root: unknown, path: Path) => path.reduce<any>((node, key) => node?.[key], root);

function applyBody(root: unknown, mutation: BodyMutation): unknown {
  if (mutation.kind === 'whole') return mutation.value;
  const tree = root && typeof root === 'object' ? root : {};
  if (mutation.kind === 'metadata') return defineAttribute(tree, 'metadata', mutation.value);
  const paths = pathsOf(tree);
  if (mutation.kind === 'flood') {
    const arrays = paths.filter((at) => Array.isArray(nodeAt(tree, at)));
    const filler = Array.from({ length: mutation.count }, (_, i) => `${i}-${'x'.repeat(mutation.bytes)}`);
    const at = pickFrom(arrays, mutation.pick);
    if (at) {
      const parent = at.length > 1 ? nodeAt(tree, at.slice(0, -1)) : tree;
      define(parent, String(at[at.length - 1]), filler);
    } else {
      defineAttribute(tree, 'permissions', filler);
    }
    return tree;
  }
  const path = pickFrom(paths, mutation.pick);
  if (mutation.kind === 'add') {
    let at = path ?? [];
    while (at.length > 0 && !isObject(nodeAt(tree, at))) at = at.slice(0, -1);
    const target = at.length ? nodeAt(tree, at) : tree;
    if (isObject(target)) define(target, mutation.key, mutation.value);
    return tree;
  }
  if (!path) return mutation.kind === 'replace' ? mutation.value : tree;
  const parent = path.length > 1 ? nodeAt(tree, path.slice(0, -1)) : tree;
  const key = path[path.length - 1] as string | number;
  if (mutation.kind === 'remove') {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  } else if (Array.isArray(parent)) parent[key as number] = mutation.value;
  else define(parent, String(key), mutation.value);
  return tree;
}

/** Sets `data.attributes[name]` (the document made an object where it was not). */
function defineAttribute(tree: object, name: string, value: unknown): object {
  const document = tree as Record<string, any>;
  if (!isObject(document.data)) define(document, 'data', {});
  if (!isObject(document.data.attributes)) define(document.data, 'attributes', {});
  define(document.data.attributes, name, value);
  return tree;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && isPlain(value);

// ---------------------------------------------------------------------------------------------
// Serialization

function hugeText(huge: Huge): string {
  const unitBytes = Buffer.byteLength(JSON.stringify(huge.unit)) - 2;
  return huge.unit.repeat(Math.max(1, Math.floor(huge.bytes / unitBytes)));
}

/** JSON text of the tree; strings that look like URLs become the loopback receiver, so no delivery leaves the machine. */
function serialize(value: unknown, world: World): string {
  if (value instanceof RawJson) return value.text;
  if (value instanceof Huge) return JSON.stringify(hugeText(value));
  if (value instanceof Deep) {
    return value.shape === 'array'
      ? `${'['.repeat(value.depth)}${']'.repeat(value.depth)}`
      : `${'{"a":'.repeat(value.depth)}1${'}'.repeat(value.depth)}`;
  }
  if (value instanceof Wide) return `{${Array.from({ length: value.keys }, (_, i) => `"k${i}":${i}`).join(',')}}`;
  if (value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value.includes('://') && value !== world.receiverUrl ? world.receiverUrl : value);
  if (Array.isArray(value)) return `[${value.map((item) => serialize(item, world)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const object = value as Record<string, unknown>;
    return `{${Object.keys(object)
      .map((key) => `${JSON.stringify(key)}:${serialize(object[key], world)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function applyRaw(text: string, mutation: RawMutation): string {
  switch (mutation.kind) {
    case 'truncate':
      return text.slice(0, mutation.pick % (text.length + 1));
    case 'wrap':
      return `${mutation.before}${text}${mutation.after}`;
    case 'text':
      return mutation.text;
  }
}

/** Bytes that are not UTF-8 in the middle of the text. */
function withInvalidUtf8(text: string): Buffer {
  const middle = Math.floor(text.length / 2);
  return Buffer.concat([Buffer.from(text.slice(0, middle)), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from(text.slice(middle))]);
}

// ---------------------------------------------------------------------------------------------
// The request

const encode = (segment: string) => encodeURIComponent(segment);

function queryText(pairs: [string, unknown][], world: World, scope: Scope): string {
  const parts: string[] = [];
  for (const [name, value] of pairs) {
    const resolved = resolve(value, world, scope);
    if (Array.isArray(resolved)) for (const item of resolved) parts.push(`${name}[]=${encode(String(item))}`);
    else parts.push(`${name}=${encode(resolved === null ? '' : String(resolved))}`);
  }
  return parts.join('&');
}

/** A well-formed id no record holds. */
const NO_RECORD = '00000000-0000-4000-8000-000000000000';

export function build(plan: Plan, world: World): Built {
  const info = routeInfo(plan.operation);
  if (!info) throw new Error(`no route ${plan.operation}`);
  const scope = world.scopes[plan.scope];
  let method: string = info.route.method;
  let account = world.account.id;
  let idMutation: Extract<Mutation, { on: 'id' }>['value'] | undefined;
  const environment = scope.environment ? (plan.environmentById ? scope.environment.id : scope.environment.code) : undefined;
  let authorization: string | undefined = scope.bearers[plan.bearer] ?? world.scopes.shared.bearers[plan.bearer] ?? '';
  const headers: Record<string, string> = { accept: JSON_API };
  const query: string[] = [];
  const nameEnvironment = (value: string, via: 'service' | 'keygen' | 'query') => {
    delete headers['service-environment'];
    delete headers['keygen-environment'];
    if (via === 'query') query.push(`environment=${encode(value)}`);
    else headers[`${via}-environment`] = value;
  };
  if (environment) nameEnvironment(environment, plan.environmentVia);
  const ownQuery = queryText(plan.query, world, scope);
  if (ownQuery) query.push(ownQuery);
  let tree = plan.body === undefined ? undefined : resolve(plan.body, world, scope);
  let raw: RawMutation[] = [];
  let invalidUtf8 = false;
  let contentType: string | null | undefined;
  let sentAs = true;

  for (const mutation of plan.mutations) {
    switch (mutation.on) {
      case 'body':
        tree = applyBody(tree, mutation.mutation);
        break;
      case 'raw':
        raw = [...raw, mutation.mutation];
        invalidUtf8 ||= mutation.invalidUtf8;
        break;
      case 'bodyPresence':
        tree = tree === undefined ? { data: { type: info.resource ?? 'things', attributes: {} } } : undefined;
        break;
      case 'contentType':
        contentType = mutation.value;
        break;
      case 'accept':
        headers.accept = mutation.value;
        break;
      case 'method':
        method = mutation.value;
        break;
      case 'query':
        query.push(
          mutation.text instanceof Huge
            ? mutation.text.unit.repeat(Math.ceil(mutation.text.bytes / mutation.text.unit.length))
            : mutation.text,
        );
        break;
      case 'environment':
        sentAs = false;
        mutateEnvironment(mutation.value, world, scope, headers, query, nameEnvironment);
        break;
      case 'authorization':
        sentAs = false;
        authorization = mutateAuthorization(mutation.value, world, scope, authorization);
        break;
      case 'id':
        idMutation = mutation.value;
        break;
      case 'account':
        sentAs = false;
        account = mutateAccount(mutation.value, world);
        break;
    }
  }

  // Only reads reach the stable records, whatever the method became: the bearers stand for them.
  const writes = method !== 'GET';
  let target: Built['target'];
  let id: string | undefined;
  if (info.resource) {
    const collection = info.resource;
    const chosen = recordId(world, scope, collection, writes ? 'expendable' : plan.pool, plan.pick);
    target = { collection, id: chosen };
    id = idMutation ? mutateId(idMutation, world, scope, collection, writes) : plan.alias ? (world.aliases.get(chosen) ?? chosen) : chosen;
  }
  if (authorization) headers.authorization = authorization;
  let body: Buffer | undefined;
  if (tree !== undefined || raw.length > 0) {
    const text = raw.reduce(applyRaw, tree === undefined ? '' : serialize(tree, world));
    body = invalidUtf8 ? withInvalidUtf8(text) : Buffer.from(text);
    if (contentType === undefined) headers['content-type'] = JSON_API;
  }
  if (contentType) headers['content-type'] = contentType;
  if (method === 'GET' && body !== undefined) body = undefined;

  const rawId = id !== undefined && plan.mutations.some((m) => m.on === 'id' && m.value.kind === 'text');
  let path = info.route.path.replace(
    '{account}',
    plan.mutations.some((m) => m.on === 'account' && m.value.kind === 'text') ? account : encode(account),
  );
  if (id !== undefined) path = path.replace('{id}', rawId ? id : encode(id));
  // A second parameter names a record under the first (a user's second factor): one the world does not hold.
  path = path.replace(/\{[A-Za-z]+\}/g, NO_RECORD);
  const url = new URL(`${path}${query.length ? `?${query.join('&')}` : ''}`, world.api);
  return {
    plan,
    info,
    request: { method, path: `${url.pathname}${url.search}`, headers, body },
    target,
    as: sentAs ? { authorization: authorization ?? '', environment, scope } : undefined,
  };
}

function mutateEnvironment(
  mutation: Extract<Mutation, { on: 'environment' }>['value'],
  world: World,
  scope: Scope,
  headers: Record<string, string>,
  query: string[],
  name: (value: string, via: 'service' | 'keygen' | 'query') => void,
): void {
  const others = Object.values(world.scopes).filter((other) => other !== scope && other.environment);
  switch (mutation.kind) {
    case 'absent':
      delete headers['service-environment'];
      delete headers['keygen-environment'];
      for (let i = query.length - 1; i >= 0; i--) if (query[i]?.startsWith('environment=')) query.splice(i, 1);
      return;
    case 'text':
      name(mutation.text, mutation.header);
      return;
    case 'conflict':
      headers['service-environment'] = world.scopes.isolated.environment?.code ?? '';
      headers['keygen-environment'] = world.scopes.shared.environment?.code ?? '';
      return;
    case 'dead':
      name(mutation.byId ? world.deadEnvironment.id : world.deadEnvironment.code, 'service');
      return;
    case 'foreign':
      name(mutation.byId ? world.other.environment.id : world.other.environment.code, 'service');
      return;
    case 'otherScope': {
      const other = others[0]?.environment;
      if (other) name(mutation.byId ? other.id : other.code, 'service');
      return;
    }
    case 'upperCase': {
      const code = scope.environment?.code;
      if (code) name(code.toUpperCase(), 'service');
      return;
    }
  }
}

function mutateAuthorization(
  mutation: Extract<Mutation, { on: 'authorization' }>['value'],
  world: World,
  scope: Scope,
  current: string | undefined,
): string {
  switch (mutation.kind) {
    case 'text':
      return mutation.text;
    case 'foreign':
      return world.other.admin;
    case 'lowerScheme':
      return (current ?? '').replace(/^[A-Za-z]+/, (scheme) => scheme.toLowerCase());
    case 'otherScope': {
      const other = Object.values(world.scopes).find((candidate) => candidate !== scope);
      return other?.bearers.license ?? '';
    }
  }
}

function mutateId(
  mutation: Extract<Mutation, { on: 'id' }>['value'],
  world: World,
  scope: Scope,
  collection: string,
  writes: boolean,
): string {
  switch (mutation.kind) {
    case 'foreign':
      return pickFrom(world.other.records[collection], mutation.pick) ?? absentId(mutation.pick);
    case 'otherScope': {
      const others = Object.values(world.scopes).filter((other) => other !== scope);
      const other = others[mutation.pick % others.length] as Scope;
      const candidates = writes
        ? (other.expendable[collection] ?? [])
        : [...(other.stable[collection] ?? []), ...(other.expendable[collection] ?? [])];
      return pickFrom(candidates, mutation.pick) ?? absentId(mutation.pick);
    }
    case 'otherType': {
      const elsewhere = COLLECTIONS.filter((other) => other !== collection);
      const other = elsewhere[mutation.pick % elsewhere.length] as string;
      return pickFrom(scope[writes ? 'expendable' : 'stable'][other], mutation.pick) ?? absentId(mutation.pick);
    }
    case 'deleted':
      return (
        pickFrom(world.graveyard[collection], mutation.pick) ?? pickFrom(world.graveyard.users, mutation.pick) ?? absentId(mutation.pick)
      );
    case 'uuid':
      return mutation.uuid;
    case 'text':
      return mutation.text;
  }
}

function mutateAccount(mutation: Extract<Mutation, { on: 'account' }>['value'], world: World): string {
  switch (mutation.kind) {
    case 'slug':
      return world.account.slug;
    case 'upperSlug':
      return world.account.slug.toUpperCase();
    case 'foreign':
      return world.other.id;
    case 'uuid':
      return mutation.uuid;
    case 'text':
      return mutation.text;
  }
}
