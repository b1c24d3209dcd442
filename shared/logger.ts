import { Logger } from '@aws-lambda-powertools/logger';

/**
 * The one structured logger. Each request appends its request id; nothing secret is ever
 * passed to it (tokens, passwords and reset tokens stay out of every log line).
 */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'licensing' });
