/**
 * Waits until the local stack is idle (dev/local/idle.ts: its queues empty, no worker batch
 * running), so that a test may then assert that nothing more happened: every side effect of
 * what it did before (an event, a delivery and its retries, a mail, a purge) has happened by
 * then. Other test files share the stack, so this also waits for their work of the moment.
 *
 *   await call('POST', ...);
 *   await localStackIdle();
 *   expect(receiver.deliveries).toHaveLength(before);
 */
import type { IdleReport } from '#dev/local/idle.ts';
import { PATIENCE_MS } from './patience.ts';
import { api } from './stack.ts';

export async function localStackIdle(timeoutSeconds = PATIENCE_MS / 1000): Promise<void> {
  const response = await api(`/_local/idle?timeout=${timeoutSeconds}`);
  const report = (await response.json()) as IdleReport;
  if (!report.idle) throw new Error(`the local stack was still busy after ${timeoutSeconds} s: ${JSON.stringify(report)}`);
}
