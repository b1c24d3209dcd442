import { ok } from '#shared/http/documents.ts';
import { operation } from '#shared/http/pipeline.ts';
import { components } from '#shared/resources/components/operations.ts';
import { retrieveComponent } from '#shared/resources/components/service.ts';
import { relatedMachine } from '#shared/resources/machines/service.ts';
import { shownMachine } from '#shared/resources/machines/shown.ts';

/** GET /components/<id>/machine */
export const handler = operation(components.machine, async ({ actor, params }) =>
  ok(await shownMachine(await relatedMachine(actor, await retrieveComponent(actor, params.id)))),
);
