/**
 * One heartbeat sweep (shared/licensing/heartbeat-sweep.ts), run every minute by an EventBridge rule
 * on AWS and on a timer by the local stack. A sweep in which some due record could not be handled
 * holds its cursor before that record, so the next sweep looks again; the invocation then fails,
 * so that a record that keeps failing shows in the function's errors (and their alarm).
 */

import { sweep } from '#shared/licensing/heartbeat-sweep.ts';
import { logger } from '#shared/logger.ts';
import { tracedWorker } from '#shared/tracer.ts';

export const handler = tracedWorker('workers.sweepHeartbeats', async () => {
  const report = await sweep();
  if (report.due > 0) logger.info('heartbeat sweep', { ...report });
  if (report.failed > 0) throw new Error(`${report.failed} of ${report.due} due records could not be handled; the next sweep looks again`);
  return report;
});
