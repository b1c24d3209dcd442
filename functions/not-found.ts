import { unmatched } from '#shared/http/pipeline.ts';

export const handler = unmatched();
