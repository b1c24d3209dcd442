/**
 * The API reference as one HTML page, rendered from the OpenAPI description (docs/openapi.json):
 * a table of contents, the operations grouped by tag (each a collapsible entry with its method,
 * path, summary, authentication, parameters, request body and responses), the security schemes,
 * the webhooks and the named schemas. No script, no request to any other origin: only an inline
 * style, pinned by hash in the page's Content-Security-Policy.
 */
import { createHash } from 'node:crypto';
import {
  type Header,
  type HttpMethod,
  METHODS,
  type MediaType,
  type Members,
  type OpenApiDescription,
  type Operation,
  type Parameter,
  type PathItem,
  present,
  type RequestBody,
  type Response,
  resolved,
  type SecurityRequirement,
  type SecurityScheme,
} from './reference-document.ts';
import { anchor, html, type Interpolation, paragraphs, type SafeHtml } from './reference-html.ts';
import { schemaLine, schemaTree } from './reference-schema.ts';

const STYLE = `:root{--ink:#1b1f24;--muted:#57606a;--line:#d8dee4;--soft:#f6f8fa;--accent:#0550ae}*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,sans-serif;color:var(--ink);background:#fff;overflow-wrap:anywhere}a{color:var(--accent)}
code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
.layout{display:grid;grid-template-columns:18rem 1fr;min-height:100vh}
.toc{position:sticky;top:0;height:100vh;overflow:auto;padding:1rem;border-right:1px solid var(--line);
background:var(--soft);font-size:14px}
.toc ol{list-style:none;margin:0;padding-left:.75rem}.toc>ol{padding:0}.toc li{margin:.15rem 0}.toc a{text-decoration:none}
.toc h2{font-size:1rem;margin:0 0 .5rem}.toc .method{min-width:3.4rem;font-size:11px}
main{padding:1.5rem 2rem 4rem;max-width:64rem;min-width:0}
@media (max-width:60rem){.layout{display:block}
.toc{position:static;height:auto;border-right:0;border-bottom:1px solid var(--line)}}
h1{margin:0 0 .25rem;font-size:1.8rem}
h2{margin:2.5rem 0 .75rem;padding-bottom:.3rem;border-bottom:1px solid var(--line);font-size:1.4rem}
h4{margin:1.25rem 0 .4rem;font-size:.95rem}.version{color:var(--muted);margin:0}
details.operation{border:1px solid var(--line);border-radius:6px;margin:.6rem 0;background:#fff}
details.operation>summary{cursor:pointer;padding:.5rem .75rem;list-style:none}
details.operation>summary::-webkit-details-marker{display:none}
details.operation[open]>summary{border-bottom:1px solid var(--line);background:var(--soft)}
details.operation>summary .operation-title::before{content:"▸";color:var(--muted)}
details.operation[open]>summary .operation-title::before{content:"▾"}
.operation-title{display:flex;flex-wrap:wrap;gap:.6rem;align-items:baseline;margin:0;font-size:1rem;font-weight:600}
.operation-body{padding:.25rem 1rem 1rem}.path{word-break:break-all}.summary{font-weight:400}
.method{display:inline-block;min-width:4.2rem;text-align:center;border-radius:4px;padding:0 .4rem;color:#fff;
font:600 12px/1.7 ui-monospace,monospace;text-transform:uppercase;background:#6e7781}
.method-get{background:#0969da}.method-post{background:#1a7f37}.method-patch,.method-put{background:#9a6700}
.method-delete{background:#cf222e}table{border-collapse:collapse;width:100%;font-size:14px}
th,td{text-align:left;vertical-align:top;border-bottom:1px solid var(--line);padding:.35rem .5rem}
th{background:var(--soft);font-weight:600}details.response{border-left:3px solid var(--line);margin:.4rem 0;padding-left:.6rem}
details.response>summary{cursor:pointer}
.status{font:600 13px ui-monospace,monospace;padding:0 .35rem;border-radius:4px;background:var(--soft)}.status-2{color:#1a7f37}
.status-3{color:#0550ae}.status-4{color:#9a6700}.status-5{color:#cf222e}
.media{margin:.5rem 0 .25rem;color:var(--muted);font-size:13px}.schema{margin:.1rem 0}
.properties,.alternatives{margin:.2rem 0;padding-left:1.1rem;border-left:1px dotted var(--line)}.properties{list-style:none}
.properties>li{margin:.3rem 0}.headline{display:inline-flex;flex-wrap:wrap;gap:.35rem;align-items:baseline}
.type{color:#8250df;font:13px ui-monospace,monospace}
.value,.format,.constraint,.flag{font:12px ui-monospace,monospace;color:var(--muted);background:var(--soft);
border-radius:3px;padding:0 .3rem}
.property{font-weight:600}.required{color:#cf222e;font-size:12px;margin-left:.35rem}.deprecated{text-decoration:line-through}
.label{color:var(--muted);font-size:13px;font-style:italic}.description p{margin:.2rem 0}
.schema .description{color:var(--muted);font-size:14px}.title{font-weight:600;font-size:13px;margin-left:.3rem}
.security{font-size:14px}.component{margin:1rem 0}.component h3{margin:0 0 .25rem}.component h3 code{font-size:1rem}
dl.schemes dt{font-weight:600;margin-top:.75rem}dl.schemes dd{margin:.2rem 0 0 1rem}`;

const digest = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

interface Entry {
  id: string;
  method: HttpMethod;
  /** The path, or the webhook's name. */
  name: string;
  operation: Operation;
  pathItem: PathItem;
}

/** Gives a fragment identifier for a name, unique on the page. */
type IdFor = (prefix: string, name: string) => string;

/** What every part of the page reads: the description, and the identifiers of the security schemes. */
interface Context {
  description: OpenApiDescription;
  schemeId: (name: string) => string;
}

/** Unique fragment identifiers: two names that read the same once made safe get a numbered suffix. */
function anchors(): IdFor {
  const taken = new Set<string>();
  return (prefix, name) => {
    const base = anchor(prefix, name);
    let id = base;
    for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
    taken.add(id);
    return id;
  };
}

function entriesOf(items: Members<PathItem> | undefined, prefix: string, idFor: IdFor): Entry[] {
  return present(items).flatMap(([name, pathItem]) =>
    METHODS.flatMap((method) => {
      const operation = pathItem[method];
      if (!operation) return [];
      return [{ id: idFor(prefix, operation.operationId ?? `${method}-${name}`), method, name, operation, pathItem }];
    }),
  );
}

interface Group {
  id: string;
  name: string;
  description?: string;
  entries: Entry[];
}

/** Operations by their first tag: the description's tags in its order, then any it does not list, then the untagged. */
function groupsOf(description: OpenApiDescription, entries: readonly Entry[], idFor: IdFor): Group[] {
  const listed = (description.tags ?? []).map((tag) => tag.name);
  const used = entries.flatMap((entry) => entry.operation.tags?.slice(0, 1) ?? []);
  const groups = [...new Set([...listed, ...used])].map((name) => ({
    id: idFor('tag', name),
    name,
    description: description.tags?.find((tag) => tag.name === name)?.description,
    entries: entries.filter((entry) => entry.operation.tags?.[0] === name),
  }));
  const untagged = entries.filter((entry) => !entry.operation.tags?.length);
  if (untagged.length) groups.push({ id: idFor('tag', 'other'), name: 'Other operations', description: undefined, entries: untagged });
  return groups.filter((group) => group.entries.length > 0);
}

const methodBadge = (method: HttpMethod) => html`<span class="method method-${method}">${method}</span>`;

function table(headings: readonly string[], rows: readonly (readonly Interpolation[])[]): SafeHtml {
  if (rows.length === 0) return html``;
  const head = html`<thead><tr>${headings.map((heading) => html`<th>${heading}</th>`)}</tr></thead>`;
  return html`<table>${head}<tbody>${rows.map((cells) => html`<tr>${cells.map((cell) => html`<td>${cell}</td>`)}</tr>`)}</tbody></table>`;
}

/** The operation's parameters: the path's, replaced by the operation's own of the same name and place. */
function parametersOf({ description }: Context, entry: Entry): Parameter[] {
  const all = [...(entry.pathItem.parameters ?? []), ...(entry.operation.parameters ?? [])]
    .map((parameter) => resolved<Parameter>(description, parameter))
    .filter((parameter): parameter is Parameter => parameter !== undefined);
  const byPlace = new Map(all.map((parameter) => [`${parameter.in}:${parameter.name}`, parameter]));
  return [...byPlace.values()];
}

function parametersTable(parameters: readonly Parameter[]): SafeHtml {
  if (parameters.length === 0) return html``;
  const rows = parameters.map((parameter) => [
    html`<code class="property">${parameter.name}</code>${parameter.required && html`<span class="required">required</span>`}${
      parameter.deprecated && html` <span class="flag deprecated">deprecated</span>`
    }`,
    parameter.in,
    schemaLine(parameter.schema),
    paragraphs(parameter.description),
  ]);
  return html`<h4>Parameters</h4>${table(['Name', 'In', 'Type', 'Description'], rows)}`;
}

function contentOf(content: Members<MediaType> | undefined): SafeHtml[] {
  return present(content).map(
    ([mediaType, media]) =>
      html`<div class="media">Content type <code>${mediaType}</code></div>${media.schema !== undefined && schemaTree(media.schema)}`,
  );
}

function requestBodyOf({ description }: Context, operation: Operation): SafeHtml {
  const body = operation.requestBody && resolved<RequestBody>(description, operation.requestBody);
  if (!body) return html``;
  return html`<h4>Request body${body.required ? '' : ' (optional)'}</h4>${paragraphs(body.description)}${contentOf(body.content)}`;
}

function headersOf({ description }: Context, headers: Response['headers']): SafeHtml {
  const rows = present(headers).flatMap(([name, value]) => {
    const header = resolved<Header>(description, value);
    return header ? [[html`<code>${name}</code>`, schemaLine(header.schema), paragraphs(header.description)]] : [];
  });
  return table(['Header', 'Type', 'Description'], rows);
}

/** Each response a collapsible entry: its status and description, then its headers and body. */
function responsesOf(context: Context, operation: Operation): SafeHtml {
  const responses = present(operation.responses);
  if (responses.length === 0) return html``;
  return html`<h4>Responses</h4>${responses.map(([status, value]) => {
    const response = resolved<Response>(context.description, value);
    const title = html`<span class="status status-${status.charAt(0)}">${status}</span> ${response?.description ?? ''}`;
    const body = present(response?.content).length > 0 ? contentOf(response?.content) : html`<div class="media">No body</div>`;
    return html`<details class="response"><summary>${title}</summary>${headersOf(context, response?.headers)}${body}</details>`;
  })}`;
}

/** Alternatives joined by "or", the schemes of one alternative by "and"; an empty one means no credential is needed. */
function securityOf({ description, schemeId }: Context, operation: Operation): SafeHtml {
  const requirements: readonly SecurityRequirement[] = operation.security ?? description.security ?? [];
  const alternatives = requirements.map((requirement) => {
    const schemes = present(requirement).map(([name]) => name);
    if (schemes.length === 0) return html`none`;
    return schemes.map((name, i) => [i > 0 && ' and ', html`<a href="#${schemeId(name)}">${name}</a>`]);
  });
  if (alternatives.length === 0) return html`<p class="security">Authentication: none</p>`;
  return html`<p class="security">Authentication: ${alternatives.map((alternative, i) => [i > 0 && ' or ', alternative])}</p>`;
}

/** An operation (or a webhook, whose requests the API makes itself: no authentication to show), closed until opened. */
function operationEntry(context: Context, entry: Entry, webhook: boolean): SafeHtml {
  const { operation } = entry;
  const classes = operation.deprecated ? 'operation-title deprecated' : 'operation-title';
  const title = html`<h3 class="${classes}">${methodBadge(entry.method)} <code class="path">${entry.name}</code> <span class="summary">${
    operation.summary ?? ''
  }</span></h3>`;
  return html`<details class="operation" id="${entry.id}"><summary>${title}</summary><div class="operation-body">${[
    paragraphs(operation.description ?? entry.pathItem.description),
    !webhook && securityOf(context, operation),
    parametersTable(parametersOf(context, entry)),
    requestBodyOf(context, operation),
    responsesOf(context, operation),
  ]}</div></details>`;
}

function schemeText(scheme: SecurityScheme): string {
  const kind = scheme.scheme?.toLowerCase();
  if (scheme.type === 'http' && kind === 'bearer') return `HTTP bearer: Authorization: Bearer <${scheme.bearerFormat ?? 'token'}>`;
  if (scheme.type === 'http') return `HTTP ${kind ?? ''}`.trim();
  if (scheme.type === 'apiKey') return `API key in the ${scheme.in ?? ''} ${scheme.name ?? ''}`.replace(/\s+/g, ' ');
  return scheme.type;
}

function securitySchemes({ description, schemeId }: Context): SafeHtml {
  const schemes = present(description.components?.securitySchemes);
  if (schemes.length === 0) return html``;
  return html`<section id="authentication"><h2>Authentication</h2><dl class="schemes">${schemes.map(([name, value]) => {
    const scheme = resolved<SecurityScheme>(description, value);
    const text = scheme && schemeText(scheme);
    return html`<dt id="${schemeId(name)}"><code>${name}</code></dt><dd>${text}${paragraphs(scheme?.description)}</dd>`;
  })}</dl></section>`;
}

function tocList(entries: readonly Entry[], label: (entry: Entry) => string): SafeHtml {
  return html`<ol>${entries.map((entry) => html`<li><a href="#${entry.id}">${methodBadge(entry.method)} ${label(entry)}</a></li>`)}</ol>`;
}

function introduction(description: OpenApiDescription, descriptionLink: string | undefined): SafeHtml {
  const { info, servers = [] } = description;
  const link = descriptionLink !== undefined && html` · <a href="${descriptionLink}">the description as JSON</a>`;
  const serverList = servers.map((server) => html`<li><code>${server.url}</code> ${server.description ?? ''}</li>`);
  return html`<header><h1>${info.title}</h1><p class="version">Version ${info.version} · OpenAPI ${description.openapi}${link}</p>${[
    paragraphs(info.summary),
    paragraphs(info.description),
    servers.length > 0 && html`<h4>Servers</h4><ul>${serverList}</ul>`,
  ]}</header>`;
}

/** The whole page. `descriptionLink`: where the page links to the description itself (relative to the page), if anywhere. */
export function renderReference(description: OpenApiDescription, options: { descriptionLink?: string } = {}): string {
  const idFor = anchors();
  const groups = groupsOf(description, entriesOf(description.paths, 'op', idFor), idFor);
  const webhooks = entriesOf(description.webhooks, 'webhook', idFor);
  const schemeNames = present(description.components?.securitySchemes).map(([name]) => name);
  const schemeIds = new Map(schemeNames.map((name) => [name, idFor('security', name)]));
  const context: Context = { description, schemeId: (name) => schemeIds.get(name) ?? 'authentication' };
  const schemas = present(description.components?.schemas).map(([name, schema]) => ({ id: anchor('schema', name), name, schema }));

  const toc = html`<nav class="toc" aria-label="Contents"><h2>Contents</h2><ol>${[
    groups.map((group) => {
      const operations = tocList(group.entries, (entry) => entry.operation.summary ?? entry.name);
      return html`<li><a href="#${group.id}">${group.name}</a>${operations}</li>`;
    }),
    schemeNames.length > 0 && html`<li><a href="#authentication">Authentication</a></li>`,
    webhooks.length > 0 && html`<li><a href="#webhooks">Webhooks</a>${tocList(webhooks, (entry) => entry.name)}</li>`,
    schemas.length > 0 && html`<li><a href="#schemas">Schemas</a></li>`,
  ]}</ol></nav>`;

  const main = html`<main>${[
    introduction(description, options.descriptionLink),
    groups.map(
      (group) =>
        html`<section id="${group.id}"><h2>${group.name}</h2>${paragraphs(group.description)}${group.entries.map((entry) =>
          operationEntry(context, entry, false),
        )}</section>`,
    ),
    securitySchemes(context),
    webhooks.length > 0 &&
      html`<section id="webhooks"><h2>Webhooks</h2><p>Requests the API sends to the endpoints an account registers.</p>${webhooks.map(
        (entry) => operationEntry(context, entry, true),
      )}</section>`,
    schemas.length > 0 &&
      html`<section id="schemas"><h2>Schemas</h2>${schemas.map(
        (entry) => html`<div class="component" id="${entry.id}"><h3><code>${entry.name}</code></h3>${schemaTree(entry.schema)}</div>`,
      )}</section>`,
  ]}</main>`;

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${html`${description.info.title} ${description.info.version}: API reference`}</title>
<style>${STYLE}</style>
</head>
<body><div class="layout">${toc}${main}</div></body>
</html>
`;
}

/**
 * The headers of the page: it may load nothing but its own inline style (no script at all,
 * no image, font or frame), and it is the same for everyone until the next deployment.
 */
export const referenceHeaders = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': `default-src 'none'; style-src ${digest(STYLE)}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  'Cache-Control': 'public, max-age=300',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};
