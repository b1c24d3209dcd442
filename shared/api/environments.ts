/** The environments' operations: what each reads of a request, and what it answers. */
import { declare } from '../http/declaration.ts';
import { tokenRequestBody } from './tokens.ts';

export const environments = {
  tokensGenerate: declare({
    operation: 'environments.tokens.generate',
    summary: 'Generate an environment token',
    auth: 'bearer',
    params: ['id'],
    body: tokenRequestBody,
    // 200, not 201, like environment tokens (docs/rules.md §2); the value is shown only here.
    answers: { 200: { resource: 'tokens' } },
    faults: [403, 422],
  }),
};
