/**
 * A JSON Schema as a person reads it: a line of type and constraints, then the members
 * (properties, items, alternatives) nested below. A reference to a named schema is a link to
 * that schema's own entry on the page, which renders it once, rather than a copy at every use.
 */

import { present, type Schema, type SchemaObject, schemaName } from './reference-document.ts';
import { anchor, html, paragraphs, type SafeHtml } from './reference-html.ts';

/** A value of the schema (const, enum, default, example) as JSON, kept short. */
function literal(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
}

function typeOf(schema: SchemaObject): string | undefined {
  if (schema.type !== undefined) return [schema.type].flat().join(' | ');
  if (schema.properties) return 'object';
  if (schema.items) return 'array';
  return undefined;
}

const BOUNDS: readonly [keyof SchemaObject, string][] = [
  ['minLength', 'min length'],
  ['maxLength', 'max length'],
  ['minimum', '≥'],
  ['exclusiveMinimum', '>'],
  ['maximum', '≤'],
  ['exclusiveMaximum', '<'],
  ['minItems', 'min items'],
  ['maxItems', 'max items'],
  ['minProperties', 'min properties'],
  ['maxProperties', 'max properties'],
];

/** The badges after the type: format, bounds, pattern, flags, default. */
function constraints(schema: SchemaObject): SafeHtml[] {
  const badge = (text: string, kind = 'constraint') => html`<span class="${kind}">${text}</span>`;
  return [
    schema.format === undefined ? undefined : badge(schema.format, 'format'),
    ...BOUNDS.filter(([key]) => typeof schema[key] === 'number').map(([key, label]) => badge(`${label} ${String(schema[key])}`)),
    schema.pattern === undefined ? undefined : badge(`pattern ${schema.pattern}`),
    schema.uniqueItems ? badge('unique items') : undefined,
    schema.additionalProperties === false ? badge('no other members') : undefined,
    schema.additionalProperties === true ? badge('other members: any') : undefined,
    schema.readOnly ? badge('read-only', 'flag') : undefined,
    schema.writeOnly ? badge('write-only', 'flag') : undefined,
    schema.deprecated ? badge('deprecated', 'flag deprecated') : undefined,
    schema.default === undefined ? undefined : badge(`default ${literal(schema.default)}`),
  ].filter((item): item is SafeHtml => item !== undefined);
}

/** A reference: a link to the named schema's entry, or the reference as written when it names none. */
function referenceTo(ref: string): SafeHtml {
  const name = schemaName(ref);
  return name === undefined ? html`<span class="type">${ref}</span>` : html`<a class="ref" href="#${anchor('schema', name)}">${name}</a>`;
}

/** The one-line head of a schema: its name or type, the values it allows, its constraints. */
function headline(schema: SchemaObject): SafeHtml {
  const type = typeOf(schema);
  return html`<span class="headline">${[
    schema.$ref !== undefined && referenceTo(schema.$ref),
    type !== undefined && html`<span class="type">${type}</span>`,
    schema.const !== undefined && html`<span class="value">${literal(schema.const)}</span>`,
    schema.enum !== undefined && html`<span class="value">${schema.enum.map(literal).join(' | ')}</span>`,
    constraints(schema),
    schema.title !== undefined && html`<span class="title">${schema.title}</span>`,
  ]}</span>`;
}

function alternatives(label: string, schemas: readonly Schema[] | undefined): SafeHtml | undefined {
  if (!schemas?.length) return undefined;
  return html`<div class="members"><span class="label">${label}</span><ol class="alternatives">${schemas.map(
    (alternative) => html`<li>${schemaTree(alternative)}</li>`,
  )}</ol></div>`;
}

function properties(schema: SchemaObject): SafeHtml | undefined {
  const entries = present(schema.properties);
  if (entries.length === 0) return undefined;
  const required = new Set(schema.required ?? []);
  return html`<ul class="properties">${entries.map(
    ([name, property]) =>
      html`<li><code class="property">${name}</code>${required.has(name) && html`<span class="required">required</span>`} ${[
        schemaLine(property),
        typeof property === 'object' && details(property),
      ]}</li>`,
  )}</ul>`;
}

/** Values of members besides the named ones, when a schema says what they may be. */
function additional(schema: SchemaObject): SafeHtml | undefined {
  const extra = schema.additionalProperties;
  if (typeof extra === 'boolean' || extra === undefined) return undefined;
  return html`<div class="members"><span class="label">other members</span> ${schemaTree(extra)}</div>`;
}

/** Everything below a schema's headline: its description, members, items and alternatives. */
function details(schema: SchemaObject): SafeHtml {
  return html`${[
    paragraphs(schema.description),
    schema.examples !== undefined &&
      schema.examples.length > 0 &&
      html`<div class="examples">Example: <code>${schema.examples.map(literal).join(', ')}</code></div>`,
    properties(schema),
    additional(schema),
    schema.items !== undefined && html`<div class="members"><span class="label">items</span> ${schemaTree(schema.items)}</div>`,
    alternatives('one of', schema.oneOf),
    alternatives('any of', schema.anyOf),
    alternatives('all of', schema.allOf),
    schema.not !== undefined && html`<div class="members"><span class="label">not</span> ${schemaTree(schema.not)}</div>`,
  ]}`;
}

/** A schema and everything nested in it (named schemas linked, not repeated). */
export function schemaTree(schema: Schema): SafeHtml {
  return html`<div class="schema">${schemaLine(schema)}${typeof schema === 'object' && details(schema)}</div>`;
}

/** A schema's headline alone: for a property's line, and a parameter's or a header's type. */
export function schemaLine(schema: Schema | undefined): SafeHtml {
  if (schema === undefined) return html``;
  if (typeof schema === 'boolean') return html`<span class="type">${schema ? 'any' : 'nothing'}</span>`;
  return headline(schema);
}
