/**
 * The API reference's pages: plain handlers outside the JSON:API pipeline, one factory per
 * declaration of operations.ts under the same key. Apart from handlers.ts, so that a page's
 * bundle carries neither the pipeline nor the AWS clients.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import description from '../../../docs/openapi.json' with { type: 'json' };
import { referenceHeaders } from '../../reference/reference-page.ts';
import { servedPage } from '../../reference/rendered-page.ts';

/**
 * GET /v1/openapi.json: the OpenAPI description, for tools. Public and the same for everyone, so
 * caches may keep it a while and pages of any origin may read it (it carries no credential).
 */
export const retrieve = () => {
  // Serialised once per container: the description changes only with a deployment.
  const body = JSON.stringify(description);
  return async (): Promise<APIGatewayProxyStructuredResultV2> => ({
    statusCode: 200,
    headers: {
      'Content-Type': 'application/json',
      'Cache-Control': 'public, max-age=300',
      'Access-Control-Allow-Origin': '*',
      'X-Content-Type-Options': 'nosniff',
    },
    body,
  });
};

/**
 * GET /v1/docs: the API reference, an HTML page rather than a JSON:API document. Rendered from the
 * description when the description is written (`npm run docs`, dev/rendered-page.ts), not when a
 * container starts: rendering took most of the page's cold start.
 */
export const page = () => {
  const body = servedPage();
  return async (): Promise<APIGatewayProxyStructuredResultV2> => ({ statusCode: 200, headers: referenceHeaders, body });
};
