/**
 * The fuzzer's report: its figures, and its failures grouped by cause, each group shown by its
 * first failure in full (method, path, headers, body, status, answer, seed) with the command that
 * sends that request again. A 5xx's cause is the error the stack logged for its request id.
 */
import type { Failure } from './checks.ts';
import type { FuzzReport } from './engine.ts';

const cut = (text: string, length: number) => (text.length > length ? `${text.slice(0, length)}… (${text.length} characters)` : text);

/** The error message the stack logged for each request id (its JSON log lines of level ERROR). */
export function causesFromLog(log: string): Map<string, string> {
  const causes = new Map<string, string>();
  for (const line of log.split('\n')) {
    if (!line.includes('"requestId"') || !/"level":"(ERROR|CRITICAL)"/.test(line)) continue;
    try {
      const entry = JSON.parse(line) as { requestId?: string; error?: { name?: string; message?: string; location?: string } };
      if (entry.requestId && entry.error) {
        causes.set(
          entry.requestId,
          `${entry.error.name ?? 'Error'}: ${entry.error.message ?? ''}`.slice(0, 200) +
            (entry.error.location ? ` at ${entry.error.location}` : ''),
        );
      }
    } catch {
      // Not a log entry of the pipeline.
    }
  }
  return causes;
}

/** What tells one cause from another: the kind, the status, and the logged error or the problem, ids and numbers blurred. */
function causeOf(failure: Failure, causes: Map<string, string>): string {
  const logged = failure.requestId ? causes.get(failure.requestId) : undefined;
  const detail = (logged ?? failure.detail)
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
    .replace(/\d+/g, 'N')
    .slice(0, 160);
  return `${failure.kind} | ${failure.status} | ${detail}`;
}

export function groupFailures(failures: readonly Failure[], causes: Map<string, string>): Map<string, Failure[]> {
  const groups = new Map<string, Failure[]>();
  for (const failure of failures) {
    const key = causeOf(failure, causes);
    groups.set(key, [...(groups.get(key) ?? []), failure]);
  }
  return groups;
}

function headersText(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${cut(value, 120)}`)
    .join('; ');
}

export function formatFailure(failure: Failure, causes: Map<string, string>, requests?: number): string {
  const logged = failure.requestId ? causes.get(failure.requestId) : undefined;
  const replay =
    failure.index === undefined
      ? `npm run fuzz -- --seed ${failure.seed}${requests ? ` --requests ${requests}` : ''} (found by the checks after the load)`
      : `npm run fuzz -- --seed ${failure.seed} --requests ${failure.index + 1} --only ${failure.index}`;
  return [
    `  ${failure.kind}: ${failure.detail}`,
    `    seed ${failure.seed}${failure.index === undefined ? '' : `, request #${failure.index}`}, as ${failure.as ?? '?'}, operation ${failure.operation}`,
    `    ${failure.request.method} ${cut(failure.request.path, 300)}`,
    `    headers: ${headersText(failure.request.headers)}`,
    `    body: ${failure.request.body ? cut(failure.request.body.toString('utf8'), 500) : '(none)'}`,
    `    answered ${failure.status}${failure.requestId ? ` (request id ${failure.requestId})` : ''}: ${cut(failure.answer, 1_000)}`,
    ...(logged ? [`    logged: ${logged}`] : []),
    `    replay: ${replay}`,
  ].join('\n');
}

export function formatReport(report: FuzzReport, causes: Map<string, string> = new Map(), totalOperations?: number): string {
  const classes = Object.entries(report.statusClasses)
    .sort()
    .map(([name, count]) => `${name} ${count}`)
    .join(', ');
  const lines = [
    `fuzz: seed ${report.seed}: ${report.requests} requests (${classes}) and ${report.invariantRequests} by the checks after them, in ${(report.durationMs / 1000).toFixed(1)} s; slowest ${Math.round(report.slowestMs)} ms`,
    `fuzz: ${report.operations}${totalOperations ? ` of ${totalOperations}` : ''} operations reached, ${report.pairs} operation × bearer pairs`,
    `fuzz: ${report.valid} requests without mutation, ${report.valid2xx} of them answered 2xx`,
    `fuzz: links refused to the bearer that saw them (403, or 404 where the admin resolves them), by the operation named: ${
      Object.entries(report.refusedLinks)
        .map(([operation, count]) => `${operation} ${count}`)
        .join(', ') || 'none'
    }`,
    `fuzz: ${report.failures.length} failures`,
  ];
  const groups = groupFailures(report.failures, causes);
  for (const [cause, failures] of [...groups].sort((a, b) => b[1].length - a[1].length)) {
    const operations = [...new Set(failures.map((failure) => failure.operation))];
    lines.push(
      '',
      `${failures.length} × ${cause}`,
      `  operations: ${operations.slice(0, 12).join(', ')}${operations.length > 12 ? ` and ${operations.length - 12} more` : ''}`,
      formatFailure(failures[0] as Failure, causes, report.requests),
    );
    const seeds = failures
      .slice(1, 4)
      .map((failure) => (failure.index === undefined ? undefined : `#${failure.index}`))
      .filter(Boolean);
    if (seeds.length) lines.push(`    also: ${seeds.join(', ')}`);
  }
  return lines.join('\n');
}
