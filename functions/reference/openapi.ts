import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import description from '../../docs/openapi.json' with { type: 'json' };

/** Serialised once per container: the description changes only with a deployment. */
const body = JSON.stringify(description);

/**
 * GET /v1/openapi.json: the OpenAPI description, for tools. Public and the same for everyone, so
 * caches may keep it a while and pages of any origin may read it (it carries no credential).
 */
export const handler = async (): Promise<APIGatewayProxyStructuredResultV2> => ({
  statusCode: 200,
  headers: {
    'Content-Type': 'application/json',
    'Cache-Control': 'public, max-age=300',
    'Access-Control-Allow-Origin': '*',
    'X-Content-Type-Options': 'nosniff',
  },
  body,
});
