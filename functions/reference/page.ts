import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { referenceHeaders, renderReference } from '#shared/reference/reference-page.ts';
import description from '../../docs/openapi.json' with { type: 'json' };

/** Rendered once per container: the description changes only with a deployment. */
const body = renderReference(description, { descriptionLink: 'openapi.json' });

/** GET /v1/docs: the API reference, an HTML page rather than a JSON:API document. */
export const handler = async (): Promise<APIGatewayProxyStructuredResultV2> => ({ statusCode: 200, headers: referenceHeaders, body });
