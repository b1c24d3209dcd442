/**
 * The reference page rendered from a small but complete OpenAPI 3.1 description
 * (test/fixtures/openapi.json): everything in it is on the page, every link lands, and nothing
 * taken from the description can become markup.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { METHODS, type OpenApiDescription, present } from '#shared/reference/reference-document.ts';
import { referenceHeaders, renderReference } from '#shared/reference/reference-page.ts';
import fixture from '../fixtures/openapi.json' with { type: 'json' };

const description: OpenApiDescription = fixture;
const page = renderReference(description, { descriptionLink: 'openapi.json' });

/** The text between the opening tag of the element with this id and the end of the page. */
const from = (id: string) => page.slice(page.indexOf(`id="${id}"`));

const operations = present(description.paths).flatMap(([path, item]) =>
  METHODS.flatMap((method) => (item[method] ? [{ path, method, operation: item[method] }] : [])),
);

describe('the reference page', () => {
  it('shows every operation of the description: method, path and summary, in an entry of its own', () => {
    expect(operations).toHaveLength(8);
    for (const { path, method, operation } of operations) {
      const entry = from(`op-${operation.operationId}`);
      expect(entry.startsWith(`id="op-${operation.operationId}"`), `${method} ${path}`).toBe(true);
      const title = entry.slice(0, entry.indexOf('</h3>'));
      expect(title).toContain(`<span class="method method-${method}">${method}</span>`);
      expect(title).toContain(`<code class="path">${path}</code>`);
      expect(title).toContain(operation.summary);
    }
  });

  it('groups the operations by tag, in the order the description lists its tags', () => {
    const sections = [...page.matchAll(/<section id="tag-([^"]+)"><h2>/g)].map((match) => match[1]);
    expect(sections).toEqual(['users', 'licenses', 'reference']);
    const users = page.slice(page.indexOf('id="tag-users"'), page.indexOf('id="tag-licenses"'));
    expect(users).toContain('id="op-users.create"');
    expect(users).toContain('id="op-tokens.generate"');
    expect(users).not.toContain('id="op-licenses.validateKey"');
  });

  it('lists the parameters, the path’s own included, the request body’s members and every response with its schema', () => {
    const list = from('op-users.list');
    const listBody = list.slice(0, list.indexOf('</details>'));
    const property = (name: string) => `<code class="property">${name}</code>`;
    for (const parameter of ['account', 'page[number]', 'page[size]', 'product']) expect(listBody).toContain(property(parameter));

    const create = from('op-users.create');
    const createBody = create.slice(0, create.indexOf('id="op-users.list"'));
    expect(createBody).toContain('<h4>Request body</h4>');
    expect(createBody).toContain('<code>application/vnd.api+json</code>');
    for (const member of ['data', 'attributes', 'email', 'password', 'role']) expect(createBody).toContain(property(member));
    expect(createBody).toContain('&quot;user&quot; | &quot;admin&quot; | &quot;read-only&quot;');
    for (const status of ['201', '400', '403', '422']) {
      expect(createBody).toContain(`<details class="response"><summary><span class="status status-${status.charAt(0)}">${status}</span>`);
    }
    expect(createBody).toContain('<a class="ref" href="#schema-UserDocument">UserDocument</a>');
    expect(createBody).toContain('Authentication: <a href="#security-bearer">bearer</a> or <a href="#security-license">license</a>');
    expect(from('op-tokens.generate')).toMatch(/^[\s\S]*?Authentication: <a href="#security-basic">basic<\/a><\/p>/);
    expect(from('op-licenses.validateKey')).toMatch(/^[\s\S]*?Authentication: none<\/p>/);
  });

  it('shows the security schemes, the webhooks and the named schemas', () => {
    for (const scheme of ['bearer', 'license', 'basic']) expect(page).toContain(`<dt id="security-${scheme}"><code>${scheme}</code></dt>`);
    expect(page).toContain('HTTP bearer: Authorization: Bearer &lt;token&gt;');
    const webhook = from('webhook-webhooks.user.created');
    expect(webhook).toContain('<code class="path">user.created</code>');
    expect(webhook).toContain('<code class="property">webhook-signature</code>');
    for (const [name] of present(description.components?.schemas)) expect(page).toContain(`<div class="component" id="schema-${name}">`);
  });

  it('has a table of contents, and every link within the page leads to an element of it', () => {
    const toc = page.slice(page.indexOf('<nav'), page.indexOf('</nav>'));
    for (const { operation } of operations) expect(toc).toContain(`href="#op-${operation.operationId}"`);
    for (const section of ['authentication', 'webhooks', 'schemas']) expect(toc).toContain(`href="#${section}"`);
    const ids = new Set([...page.matchAll(/ id="([^"]+)"/g)].map((match) => match[1]));
    const targets = [...page.matchAll(/ href="#([^"]+)"/g)].map((match) => match[1]);
    expect(targets.length).toBeGreaterThan(20);
    expect(targets.filter((target) => !ids.has(target))).toEqual([]);
    expect(ids.size).toBe([...page.matchAll(/ id="/g)].length);
  });

  it('escapes every string taken from the description', () => {
    const attack = '<script>alert(1)</script>';
    const breakOut = '"><img src=x onerror=alert(2)>';
    const hostile = structuredClone(fixture) as OpenApiDescription & typeof fixture;
    hostile.info.title = attack;
    hostile.info.description = `${attack}\n\n${breakOut}`;
    hostile.paths['/v1/accounts/{account}/users'].post.summary = attack;
    hostile.paths['/v1/accounts/{account}/users'].post.operationId = breakOut;
    hostile.paths['/v1/accounts/{account}/users'].post.tags = [breakOut];
    hostile.components.schemas.User.properties.attributes.properties.role.enum = [attack, breakOut];
    hostile.components.parameters.account.description = attack;
    hostile.servers[0]!.url = breakOut;
    const hostilePaths = hostile.paths as Record<string, unknown>;
    hostilePaths[`/v1/${breakOut}`] = { get: { summary: attack, responses: { [breakOut]: { description: attack } } } };

    const rendered = renderReference(hostile);
    expect(rendered).not.toMatch(/<script|<img/i);
    expect(rendered).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(rendered).toContain('&quot;&gt;&lt;img src=x onerror=alert(2)&gt;');
    expect(rendered).toContain('<title>&lt;script&gt;');
    // An id made from the description keeps to letters, digits and -_.
    const ids = [...rendered.matchAll(/ id="([^"]*)"/g)].map((match) => match[1] ?? '');
    expect(ids.filter((id) => !/^[A-Za-z0-9_.-]+$/.test(id))).toEqual([]);
  });

  it('pins its one inline style in the Content-Security-Policy, and allows nothing else', () => {
    const style = /<style>([\s\S]*)<\/style>/.exec(page)?.[1] ?? '';
    const hash = createHash('sha256').update(style).digest('base64');
    expect(referenceHeaders['Content-Security-Policy']).toBe(
      `default-src 'none'; style-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    expect(page).not.toMatch(/<script|<link|<img|<iframe|\sstyle=|\son[a-z]+=/i);
  });

  it('renders a description with nothing but its info', () => {
    const bare = renderReference({ openapi: '3.1.0', info: { title: 'Empty', version: '0' } });
    expect(bare).toContain('<h1>Empty</h1>');
    expect(bare).not.toContain('<section');
  });
});
