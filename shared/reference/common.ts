/**
 * Pieces the declarations share (each resource's operations.ts): query filters by related record, and the
 * relationship routes' shape.
 */
import * as z from 'zod/mini';
import { isUuid } from '../store/records.ts';

/** A query filter naming a related record by id (`?machine=<uuid>`): lower-cased, as ids are stored. */
export const uuidFilter = () =>
  z.optional(
    z.pipe(
      z.string().check(z.refine(isUuid, { message: 'must be a UUID' })),
      z.transform((id) => id.toLowerCase()),
    ),
  );
