/**
 * The benchmark report: one table per section, each row a measured figure against its budget,
 * written to docs/benchmarks.md with the machine it ran on.
 */
import { cpus, loadavg, totalmem } from 'node:os';

export interface Measurement {
  what: string;
  figure: string;
  budget: string;
  /** undefined when a row is context rather than a budget. */
  met?: boolean;
}

export interface Section {
  title: string;
  /** How it was measured, in a sentence or two. */
  method: string;
  rows: Measurement[];
  /** What the figures mean, what was changed to meet a budget, or why one cannot be met. */
  notes?: string;
  /** One-minute load average when the section started (others' work on the machine). */
  load?: number;
  /** How long the section took, seeding included. */
  seconds?: number;
  /** When and on what machine it ran: a run of some sections keeps the others' figures from earlier runs. */
  ran?: string;
}

export function machine(): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  return `${cpus().length} × ${cpu}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node.js ${process.version}, DynamoDB Local (in memory)`;
}

/** When and where a section runs, as its heading shows it. */
export const ranNow = (at = new Date()) => `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${machine()}`;

export function render(sections: Section[], run: { totalSeconds?: number; measured?: readonly string[] } = {}): string {
  const [one, five, fifteen] = loadavg().map((n) => n.toFixed(2));
  const measured = run.measured ? ` (this run: ${run.measured.join(', ')}; the other sections are kept from earlier runs)` : '';
  const lines = [
    '# Benchmarks',
    '',
    `Written by \`npm run bench\` on ${ranNow()}${measured}. Each section's heading says when and where it ran.`,
    `Load average at the end of the run (1, 5, 15 min): ${one}, ${five}, ${fifteen}; each section's own is in its heading line.`,
    ...(run.totalSeconds === undefined ? [] : [`Last full \`npm run bench\`: ${Math.round(run.totalSeconds)} s.`]),
    'The machine is shared: each section notes the one-minute load average when it started; with 2 cores, a load above 2 means other work competed for them.',
    '',
    'Figures are from the local stack (DynamoDB Local, the local SQS server), so they compare designs',
    'on one machine rather than predict AWS latencies. Tests never assert timings; this report does.',
    '',
  ];
  for (const section of sections) lines.push(...sectionLines(section));
  return lines.join('\n');
}

/** One section: its heading, how it was measured, its table and its notes. */
export function sectionLines(section: Section): string[] {
  const when = [
    section.ran ?? '',
    section.load === undefined ? '' : `load average ${section.load.toFixed(2)} at start`,
    section.seconds === undefined ? '' : `${section.seconds.toFixed(0)} s`,
  ]
    .filter(Boolean)
    .join(', ');
  const rows = section.rows.map((row) => [row.what, row.figure, row.budget, row.met === undefined ? '' : row.met ? 'yes' : '**no**']);
  return [
    `## ${section.title}`,
    '',
    ...(when ? [`_${when}_`, ''] : []),
    section.method,
    '',
    ...table(['What', 'Figure', 'Budget', 'Met'], rows),
    ...(section.notes ? ['', section.notes] : []),
    '',
  ];
}

/** A Markdown table with its columns padded to their widest cell, as a Markdown formatter lays it out. */
function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((cell, i) => Math.max(3, cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)];
}
