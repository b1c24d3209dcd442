/**
 * cdk-nag's AwsSolutions rules over the whole app, nested stacks included (the checks walk the
 * construct tree from its root). A finding is either fixed or acknowledged next to its construct
 * with `Validations.of(construct).acknowledge({ id, reason })`; none is waved through here, except
 * those listed in PENDING_ELSEWHERE below.
 */
import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { synthesize } from './synthesize.ts';

interface Finding {
  /** The rule, with the finding for rules that report several per resource: `AwsSolutions-IAM5[Resource::*]`. */
  rule: string;
  path: string;
  severity: string;
  description: string;
}

interface PendingFinding {
  rule: string;
  /** The construct paths the finding is skipped on. */
  path: RegExp;
  /** The module whose constructs it is on, where its fix or its acknowledgement belongs. */
  module: string;
}

/**
 * PENDING_ELSEWHERE: findings on constructs built in modules this change leaves alone. Each is
 * to be fixed or acknowledged next to its construct, in its module; then its entry goes. The
 * list is meant to be empty.
 */
const PENDING_ELSEWHERE: readonly PendingFinding[] = [];

const isPending = (finding: Finding, pending: PendingFinding) => finding.rule === pending.rule && pending.path.test(finding.path);

const { stack } = synthesize();
const app = stack.node.root;
// The same checks `cdk synth -c nag=true` runs (bin/app.ts), here over the synthesised tree.
const report = new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(app);
const findings: Finding[] = report.violations.flatMap((violation) =>
  violation.violatingResources.map((resource) => ({
    rule: violation.ruleName,
    path: resource.constructPath ?? '(no construct path)',
    severity: violation.severity ?? 'error',
    description: violation.description,
  })),
);

describe('the AwsSolutions checks', () => {
  it('find nothing that is neither fixed nor acknowledged with its reason', () => {
    const open = findings.filter((finding) => !PENDING_ELSEWHERE.some((pending) => isPending(finding, pending)));
    expect(open.map((finding) => `${finding.severity} ${finding.rule} at ${finding.path}: ${finding.description}`)).toEqual([]);
  });

  it.each(PENDING_ELSEWHERE.map((pending) => [pending.rule, pending.module, pending]))(
    'still find %s on constructs of %s (drop the entry from PENDING_ELSEWHERE once it is placed there)',
    (_rule, _module, pending) => {
      expect(findings.some((finding) => isPending(finding, pending))).toBe(true);
    },
  );

  it('are acknowledged only with a reason', () => {
    const acknowledgements = app.node.findAll().flatMap((construct) =>
      construct.node.metadata
        .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((entry) => Object.entries(entry.data as Record<string, string>))
        .map(([rule, reason]) => ({ at: `${construct.node.path} ${rule.replace(/^annotation::/i, '')}`, reason: reason.trim() })),
    );
    for (const { at, reason } of acknowledgements) expect(reason.length, at).toBeGreaterThanOrEqual(20);
  });
});
