/** The bearer's own operation: whom the request's credential stands for. */
import { ACCOUNT, READ } from '../../access.ts';
import { declare } from '../../http/declaration.ts';

export const me = {
  retrieve: declare({
    operation: 'me.retrieve',
    authorizes: { nothing: 'every credential may read the record it stands for' },
    method: 'GET',
    path: `${ACCOUNT}/me`,
    access: READ,
    summary: "The request's bearer: the user, environment, product or license its credential stands for",
    auth: 'bearer',
    answers: { 200: { oneOf: ['users', 'environments', 'products', 'licenses'] } },
  }),
};
