/** The API's own description: as JSON for tools, as a page for people. Neither needs a credential or an account. */
import { declare } from '../../http/declaration.ts';

export const openapi = {
  retrieve: declare({
    operation: 'openapi.retrieve',
    method: 'GET',
    path: '/v1/openapi.json',
    access: [],
    summary: "Retrieve this API's OpenAPI 3.1 description",
    auth: 'none',
    plain: true,
    answers: { 200: { json: true } },
  }),
};

export const reference = {
  page: declare({
    operation: 'reference.page',
    method: 'GET',
    path: '/v1/docs',
    access: [],
    summary: 'Read the API reference in a browser',
    auth: 'none',
    plain: true,
    answers: { 200: { html: true } },
  }),
};
