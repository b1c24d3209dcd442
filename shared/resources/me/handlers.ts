/**
 * Handlers of the bearer's own operations, one per declaration of operations.ts under the same key. Each
 * export is a factory: the operation's function calls it once to build its Lambda handler
 * (shared/routes.ts, `HandlerSource`), so its bundle leaves the other operations out.
 */
import { ok } from '../../http/documents.ts';
import { operation } from '../../http/pipeline.ts';
import type { ResourceObject } from '../../jsonapi.ts';
import { environmentDocument } from '../environments/document.ts';
import { shownLicense } from '../licenses/shown.ts';
import { productDocument } from '../products/document.ts';
import { userDocument } from '../users/document.ts';
import { me } from './operations.ts';
import { type BearerRecord, retrieveBearer } from './service.ts';

/** The bearer's document, as its own type shows it. */
async function documentOf(bearer: BearerRecord): Promise<ResourceObject> {
  switch (bearer.type) {
    case 'users':
      return userDocument(bearer);
    case 'environments':
      return environmentDocument(bearer);
    case 'products':
      return productDocument(bearer);
    case 'licenses':
      return shownLicense(bearer);
  }
}

/** GET /me: the user, environment, product or license the request's credential stands for. */
export const retrieve = () => operation(me.retrieve, async ({ actor }) => ok(await documentOf(await retrieveBearer(actor))));
