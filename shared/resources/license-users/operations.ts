/** A license's users' operations (docs/rules.md §18.11): what each reads of a request, and what it answers. */

import * as z from 'zod/mini';
import { ACCOUNT, EMIT, READ } from '../../access.ts';
import { nonBlank } from '../../http/body.ts';
import { declare } from '../../http/declaration.ts';
import { MAX_NAMED } from './entity.ts';

/** `{data: [{type: "users", id}, ...]}`: the users an attach or a detach names, 1 to 100 (Keygen takes `user` too). */
const usersNamed = z.strictObject({
  data: z
    .array(z.strictObject({ type: z.enum(['users', 'user']), id: nonBlank() }))
    .check(z.minLength(1, 'names at least one user'), z.maxLength(MAX_NAMED, `names at most ${MAX_NAMED} users`)),
});

export const licenseUsers = {
  list: declare({
    operation: 'licenseUsers.list',
    authorizes: { type: 'license-users', action: 'list', record: true },
    method: 'GET',
    path: `${ACCOUNT}/licenses/{id}/users`,
    access: READ,
    summary: 'List the users attached to a license (its owner is GET /licenses/<id>/owner), the license named by id or key',
    auth: 'bearer',
    params: ['id'],
    paged: true,
    answers: { 200: { list: 'users' } },
    faults: [403],
  }),
  attach: declare({
    operation: 'licenseUsers.attach',
    authorizes: { type: 'license-users', action: 'attach', record: true },
    method: 'POST',
    path: `${ACCOUNT}/licenses/{id}/users`,
    access: EMIT,
    summary: 'Attach users to a license, up to its maxUsers: all or none',
    auth: 'bearer',
    params: ['id'],
    body: usersNamed,
    answers: { 200: { collection: 'license-users' } },
    // 422 USER_NOT_FOUND, USER_TAKEN, USER_CONFLICT, LICENSE_USER_LIMIT_EXCEEDED; 409: the license's owner changed meanwhile.
    faults: [403, 409, 422],
  }),
  detach: declare({
    operation: 'licenseUsers.detach',
    authorizes: { type: 'license-users', action: 'detach', record: true },
    method: 'DELETE',
    path: `${ACCOUNT}/licenses/{id}/users`,
    access: EMIT,
    summary: 'Detach users from a license: all or none',
    auth: 'bearer',
    params: ['id'],
    body: usersNamed,
    answers: { 204: { empty: true } },
    // 403 for its owner (attached through ownership); 422 USER_NOT_FOUND for one not attached.
    faults: [403, 409, 422],
  }),
};
