/**
 * How long a test waits for asynchronous work (a delivery, a mail, a purge, a cascade, the stack
 * to be idle) before it gives up: a safety net far above what the work takes, even on a machine
 * busy with other work. What ends a wait is the stack's own signal that the work is done, never
 * this; it only keeps a run from hanging when something is broken. Below vitest's testTimeout, so
 * the wait's own message (what it was still waiting for) is the one reported.
 */
export const PATIENCE_MS = 120_000;

/**
 * Looks again every `intervalMs` until `look` finds what it waits for (anything but undefined or
 * false), and returns it; after PATIENCE_MS throws with `waitingFor(last)`, what was still missing.
 */
export async function until<T>(look: () => Promise<T | undefined | false>, waitingFor: () => string, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const found = await look();
    if (found !== undefined && found !== false) return found;
    if (Date.now() > deadline) throw new Error(`still waiting after ${PATIENCE_MS / 1000} s for ${waitingFor()}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
