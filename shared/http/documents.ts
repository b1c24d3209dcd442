/**
 * The replies handlers return: JSON:API documents of resource objects (shared/jsonapi.ts).
 */

import type { ResourceObject } from '../jsonapi.ts';
import type { ListLinks } from './pagination.ts';

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

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
