/**
 * The replies handlers return: JSON:API documents of resource objects (shared/jsonapi.ts), or a
 * file to save.
 */

import type { ResourceObject } from '../jsonapi.ts';
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
/** 200 with a file to save under `filename`. */
export const attachment = (content: string, filename: string): Reply => ({
  status: 200,
  raw: content,
  headers: { 'Content-Type': FILE_MEDIA_TYPE, 'Content-Disposition': `attachment; filename="${filename}"` },
});
