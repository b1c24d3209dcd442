/** The password-reset operations: asking for a reset, and the hosted form the mail links to. */

import * as z from 'zod/mini';
import { ACCOUNT, MAIL, WRITE } from '../../access.ts';
import { metaDocument, nonBlank } from '../../http/body.ts';
import { declare } from '../../http/declaration.ts';

export const passwords = {
  request: declare({
    operation: 'passwords.request',
    method: 'POST',
    path: `${ACCOUNT}/passwords`,
    access: WRITE,
    throttle: MAIL,
    summary: 'Request a password-reset token for an e-mail address',
    auth: 'none',
    body: metaDocument({ email: nonBlank(), deliver: z.optional(z.boolean()) }),
    limitPerAddress: true,
    // 202 for every well-formed request, whether or not the address is a user's.
    answers: { 202: { empty: true } },
  }),
  form: declare({
    operation: 'passwords.form',
    method: 'GET',
    path: `${ACCOUNT}/password-reset`,
    access: [],
    summary: 'The hosted password-reset form',
    auth: 'none',
    plain: true,
    answers: { 200: { html: true } },
  }),
};
