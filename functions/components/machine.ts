import { components } from '#shared/api/components.ts';
import { retrieveComponent } from '#shared/domain/components/service.ts';
import { relatedMachine } from '#shared/domain/machines/service.ts';
import { shownMachine } from '#shared/domain/machines/shown.ts';
import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';

/** GET /components/<id>/machine */
export const handler = operation(components.machine, async ({ actor, params }) =>
  ok(await shownMachine(await relatedMachine(actor, await retrieveComponent(actor, params.id)))),
);
