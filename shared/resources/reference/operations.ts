/** The API's own description: as JSON for tools, as a page for people. Neither needs a credential or an account. */
import { declare } from '../../http/declaration.ts';

export const openapi = {
  retrieve: declare({
    operation: 'openapi.retrieve',
    summary: "Retrieve this API's OpenAPI 3.1 description",
    auth: 'none',
    plain: true,
    answers: { 200: { json: true } },
  }),
};

export const reference = {
  page: declare({
    operation: 'reference.page',
    summary: 'Read the API reference in a browser',
    auth: 'none',
    plain: true,
    answers: { 200: { html: true } },
  }),
};
