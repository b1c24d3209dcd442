/**
 * The password reset's page: the hosted form, a plain handler outside the JSON:API pipeline (a
 * factory under its declaration's key, as in handlers.ts). Apart from handlers.ts, so that its
 * bundle carries neither the pipeline nor the AWS clients.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { resetFormPage } from './form.ts';

/**
 * GET /password-reset: the hosted reset form, an HTML page rather than a JSON:API document. It
 * reads nothing of the request, so it runs outside the pipeline; its declaration
 * (`passwords.form` in shared/resources/passwords/operations.ts) only describes it.
 */
export const form = () => async (): Promise<APIGatewayProxyStructuredResultV2> => ({
  statusCode: 200,
  headers: resetFormPage.headers,
  body: resetFormPage.body,
});
