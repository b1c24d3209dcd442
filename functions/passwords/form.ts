import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { resetFormPage } from '#shared/resources/passwords/form.ts';

/**
 * GET /password-reset: the hosted reset form, an HTML page rather than a JSON:API document. It
 * reads nothing of the request, so it runs outside the pipeline; its declaration
 * (`passwords.form` in shared/resources/passwords/operations.ts) only describes it.
 */
export const handler = async (): Promise<APIGatewayProxyStructuredResultV2> => ({
  statusCode: 200,
  headers: resetFormPage.headers,
  body: resetFormPage.body,
});
