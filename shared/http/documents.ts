/**
 * The replies handlers return: JSON:API documents of resource objects (shared/jsonapi.ts), or a
 * file to save.
 */

import { linkedFrom, type ResourceObject } from '../jsonapi.ts';
import type { ListLinks } from './pagination.ts';

export interface Reply {
  status: number;
  /** The document, sent as JSON. */
  body?: unknown;
  /** A body sent as it is instead (a file), its media type named in `headers`. */
  raw?: string;
  headers?: Record<string, string>;
}

/** The media type of a file the API answers with (a license file). */
export const FILE_MEDIA_TYPE = 'application/octet-stream';

export const ok = (data: ResourceObject, meta?: Record<string, unknown>): Reply => ({
  status: 200,
  body: { data, ...(meta ? { meta } : {}) },
});
/** 200 with `data: null`: a to-one relationship that is empty (e.g. a license without owner). */
export const okNone = (): Reply => ({ status: 200, body: { data: null } });
export const created = (data: ResourceObject): Reply => ({ status: 201, body: { data } });
export const noContent = (): Reply => ({ status: 204 });
export const accepted = (): Reply => ({ status: 202 });
export const list = (data: ResourceObject[], links: ListLinks): Reply => ({ status: 200, body: { data, links } });
/** 200 with resources a request made or named, not a page (the attachments of an attach). */
export const okCollection = (data: ResourceObject[]): Reply => ({ status: 200, body: { data } });
/** 200 with a file to save under `filename`. */
export const attachment = (content: string, filename: string): Reply => ({
  status: 200,
  raw: content,
  headers: { 'Content-Type': FILE_MEDIA_TYPE, 'Content-Disposition': `attachment; filename="${filename}"` },
});

/**
 * The reply with the links of its resources as a request whose headers select
 * `headerEnvironmentId` follows them (see linkedFrom): every answer's documents pass here.
 */
export function linkedReply(reply: Reply, headerEnvironmentId: string | null): Reply {
  const body = reply.body;
  if (body === null || typeof body !== 'object' || !('data' in body)) return reply;
  const link = (value: unknown) => (isResource(value) ? linkedFrom(value, headerEnvironmentId) : value);
  return { ...reply, body: { ...body, data: Array.isArray(body.data) ? body.data.map(link) : link(body.data) } };
}

function isResource(value: unknown): value is Pick<ResourceObject, 'relationships' | 'links'> {
  if (value === null || typeof value !== 'object' || !('relationships' in value)) return false;
  return value.relationships !== null && typeof value.relationships === 'object';
}
