import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The one structured logger. A request's lines name it themselves (the pipeline's `logKeys`: its
 * request id, route, account, environment and bearer), as workers' lines name their message;
 * nothing secret is ever passed to it (tokens, passwords and reset tokens stay out of every line).
 */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'licensing' });
