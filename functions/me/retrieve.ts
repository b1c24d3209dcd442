import { me } from '#shared/api/me.ts';
import { environmentDocument } from '#shared/domain/environments/document.ts';
import { licenseDocument } from '#shared/domain/licenses/document.ts';
import { type BearerRecord, retrieveBearer } from '#shared/domain/me/service.ts';
import { productDocument } from '#shared/domain/products/document.ts';
import { userDocument } from '#shared/domain/users/document.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import type { ResourceObject } from '#shared/jsonapi.ts';

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
