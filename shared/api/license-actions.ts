/** A license's lifecycle actions (docs/rules.md §11): what each reads of a request, and what it answers. */
import { declare } from '../http/declaration.ts';

export const licenseActions = {
  suspend: declare({
    operation: 'licenses.suspend',
    summary: 'Suspend a license: it fails validation and may not authenticate until reinstated',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'licenses' } },
    // 422 LICENSE_ALREADY_SUSPENDED; 409: the license changed meanwhile.
    faults: [403, 409, 422],
  }),
  reinstate: declare({
    operation: 'licenses.reinstate',
    summary: 'Reinstate a suspended license',
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'licenses' } },
    // 422 LICENSE_NOT_SUSPENDED; 409: the license changed meanwhile.
    faults: [403, 409, 422],
  }),
  renew: declare({
    operation: 'licenses.renew',
    summary: "Renew a license: its expiry moved by its policy's duration from the policy's renewal basis",
    auth: 'bearer',
    params: ['id'],
    answers: { 200: { resource: 'licenses' } },
    // 422 LICENSE_NOT_RENEWABLE (a policy without a duration); 409: the expiry changed meanwhile.
    faults: [403, 409, 422],
  }),
  revoke: declare({
    operation: 'licenses.revoke',
    summary: 'Revoke a license: removed with its machines, components and tokens, as a delete is',
    auth: 'bearer',
    params: ['id'],
    answers: { 204: { empty: true } },
    // 409: a token was generated for the license while it was being removed.
    faults: [403, 409],
  }),
};
