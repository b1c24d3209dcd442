/**
 * The queues the service uses, shared by the CDK stack and the local stack so both create
 * the same ones. Each queue has a dead-letter queue that receives a message after
 * `maxReceiveCount` failed receives, so a poison message never loops forever.
 */
import type { QueueName } from './routes.ts';

export interface QueueDefinition {
  /** Environment variable that carries the queue URL to the functions that send to it. */
  urlVariable: string;
  /** Seconds a received message stays hidden; must exceed the worker's timeout. */
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
  /** How long the dead-letter queue keeps a message (seconds). */
  deadLetterRetentionSeconds: number;
}

export const queues: Record<QueueName, QueueDefinition> = {
  webhooks: { urlVariable: 'WEBHOOK_QUEUE_URL', visibilityTimeoutSeconds: 120, maxReceiveCount: 5, deadLetterRetentionSeconds: 14 * 86400 },
  purge: { urlVariable: 'PURGE_QUEUE_URL', visibilityTimeoutSeconds: 960, maxReceiveCount: 5, deadLetterRetentionSeconds: 14 * 86400 },
  mail: { urlVariable: 'MAIL_QUEUE_URL', visibilityTimeoutSeconds: 120, maxReceiveCount: 5, deadLetterRetentionSeconds: 14 * 86400 },
  cascades: {
    urlVariable: 'CASCADES_QUEUE_URL',
    visibilityTimeoutSeconds: 720,
    maxReceiveCount: 5,
    deadLetterRetentionSeconds: 14 * 86400,
  },
};

/** Seconds a worker function may run; visibility timeouts above are at least 6x this, as AWS advises. */
export const workerTimeoutSeconds: Record<QueueName, number> = { webhooks: 20, purge: 150, mail: 20, cascades: 120 };
