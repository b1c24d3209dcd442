/**
 * The API's description over HTTP: GET /v1/openapi.json for tools and GET /v1/docs for people,
 * outside any account, with no credential.
 */
import { describe, expect, it } from 'vitest';
import description from '../../docs/openapi.json' with { type: 'json' };
import { api } from '../support/stack.ts';

describe('GET /v1/openapi.json', () => {
  it('answers the committed description as JSON, cacheable, to anyone', async () => {
    const response = await api('/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.json()).toEqual(description);
  });

  it('ignores a credential, even one that is not valid', async () => {
    const response = await api('/v1/openapi.json', { headers: { authorization: 'Bearer not-a-token' } });
    expect(response.status).toBe(200);
  });
});

describe('GET /v1/docs', () => {
  it('answers the reference page, which may load nothing but its inline style', async () => {
    const response = await api('/v1/docs', { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy.split('; ')).toEqual([
      "default-src 'none'",
      expect.stringMatching(/^style-src 'sha256-[A-Za-z0-9+/]+=*'$/),
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ]);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const page = await response.text();
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(page).toContain(`<h1>${description.info.title}</h1>`);
    expect(page).toContain('<a href="openapi.json">');
  });

  it('needs no credential and ignores one', async () => {
    const response = await api('/v1/docs', { headers: { authorization: 'Basic bm90OnZhbGlk' } });
    expect(response.status).toBe(200);
  });

  it('answers GET only: another method is an unknown route', async () => {
    const response = await api('/v1/docs', { method: 'POST' });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/vnd.api+json');
  });
});
