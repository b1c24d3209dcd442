import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import type { ResourceObject } from '#shared/jsonapi.ts';
import { environmentDocument } from '#shared/resources/environments/document.ts';
import { licenseDocument } from '#shared/resources/licenses/document.ts';
import { me } from '#shared/resources/me/operations.ts';
import { type BearerRecord, retrieveBearer } from '#shared/resources/me/service.ts';
import { productDocument } from '#shared/resources/products/document.ts';
import { userDocument } from '#shared/resources/users/document.ts';

/** The bearer's document, as its own type shows it. */
function documentOf(bearer: BearerRecord): ResourceObject {
  switch (bearer.type) {
    case 'users':
      return userDocument(bearer);
    case 'environments':
      return environmentDocument(bearer);
    case 'products':
      return productDocument(bearer);
    case 'licenses':
      return licenseDocument(bearer);
  }
}

/** GET /me: the user, environment, product or license the request's credential stands for. */
export const handler = operation(me.retrieve, async ({ actor }) => ok(documentOf(await retrieveBearer(actor))));
