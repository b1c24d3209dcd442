/**
 * Settings read from the environment, the same way in Lambda and in the local stack.
 * Read lazily so that a module can be imported before the variables are set.
 */
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`The environment variable ${name} is not set`);
  return value;
}

export const config = {
  get tableName() {
    return required('TABLE_NAME');
  },
  /** Name shown in WWW-Authenticate and mail. */
  get serviceName() {
    return process.env.SERVICE_NAME ?? 'licensing';
  },
  /** Base URL of the API as clients reach it (links in e-mails). */
  get publicUrl() {
    return (process.env.PUBLIC_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
  },
  /** Sender of the service's mail; an identity verified in SES. */
  get mailFrom() {
    return required('MAIL_FROM');
  },
  queueUrl(variable: string) {
    return required(variable);
  },
};
