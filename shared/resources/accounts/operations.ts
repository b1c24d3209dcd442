/** The account's operations: what each reads of a request, and what it answers. */

import * as z from 'zod/mini';
import { ACCOUNT, EMIT, READ } from '../../access.ts';
import { nonBlank, updateDocument } from '../../http/body.ts';
import { declare } from '../../http/declaration.ts';

export const accounts = {
  retrieve: declare({
    operation: 'accounts.retrieve',
    authorizes: { type: 'accounts', action: 'read' },
    method: 'GET',
    path: ACCOUNT,
    access: READ,
    summary: 'Retrieve the account',
    auth: 'bearer',
    answers: { 200: { resource: 'accounts' } },
    faults: [403],
  }),
  update: declare({
    operation: 'accounts.update',
    authorizes: { type: 'accounts', action: 'update' },
    method: 'PATCH',
    path: ACCOUNT,
    access: EMIT,
    summary: 'Update the account',
    auth: 'bearer',
    body: updateDocument('accounts', { name: z.optional(nonBlank()), protected: z.optional(z.boolean()) }),
    answers: { 200: { resource: 'accounts' } },
    faults: [403, 409, 422],
  }),
};
