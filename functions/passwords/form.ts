import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { resetFormPage } from '#shared/domain/passwords/form.ts';

/** GET /password-reset: the hosted reset form, an HTML page rather than a JSON:API document. */
export const handler = async (): Promise<APIGatewayProxyStructuredResultV2> => ({
  statusCode: 200,
  headers: resetFormPage.headers,
  body: resetFormPage.body,
});
