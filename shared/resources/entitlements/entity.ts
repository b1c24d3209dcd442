/**
 * Entitlements: named features a vendor grants, attached to policies (for every license under
 * them) and to single licenses, and checked by licensed software in a validation's
 * `meta.scope.entitlements`. A code is unique per account, case-insensitively and across
 * environments, held by a uniqueness marker that points at the record.
 */

import type { AccessPattern, MarkerKind } from '../../store/data-model.ts';
import type { StoredRecord } from '../../store/records.ts';

export interface EntitlementRecord extends StoredRecord {
  type: 'entitlements';
  name: string;
  code: string;
  metadata: Record<string, unknown>;
  /** Set while its removal detaches it everywhere: no attach takes it from then on (attachments.ts). */
  removing?: true;
}

export const ENTITLEMENT_CODE_MARKER = 'ENTITLEMENT_CODE';

/** The uniqueness markers its records hold (docs/data-model.md). */
export const MARKER_KINDS: readonly MarkerKind[] = [{ kind: ENTITLEMENT_CODE_MARKER, value: "an entitlement's code, lower-cased" }];

/** The value a code's marker holds: codes are compared case-insensitively. */
export const entitlementCodeValue = (code: string) => code.toLowerCase();

/** The access patterns performed here (docs/data-model.md is generated from them: `npm run docs`). */
export const ACCESS_PATTERNS: readonly AccessPattern[] = [
  {
    n: 44,
    name: "A license's effective entitlements",
    operation:
      "BatchGetItem of its policy's set and its own; for the records, BatchGetItem of the entitlements they name (pattern 3), each once",
    index: 'table',
    key: '`PK = A#<acct>#POLICY#<policyId>#ENTITLEMENTS` and `A#<acct>#LICENSE#<id>#ENTITLEMENTS`',
    usedBy:
      "`GET /licenses/<id>/entitlements`, `GET /policies/<id>/entitlements` (the policy's set alone), what a license or user bearer reaches (a user: the sets of the licenses they own, pattern 32), `effectiveEntitlementIds`",
    tests: ['store/data-model', 'http/entitlements'],
  },
  {
    n: 45,
    name: 'Attach and detach entitlements, all or nothing',
    operation:
      "Put of the pointers (TransactWriteItems) before an attach; TransactWriteItems: UpdateItem of the holder's set, `SET` (attach, creating the set) or `REMOVE` (detach) of one attribute per attachment, conditional on each being absent (attach) or as read (detach) and the version `v` as read (`ADD v 1`), `SET n` to the entries read plus or minus those changed; before the commit, an attach reads the entitlements again (BatchGetItem) once its pointers are written and refuses one that is gone or marked `removing`, and refuses one the set has a tombstone of; ConditionCheck that the holder exists; for a license, ConditionCheck that its policy's set holds none of those attached; the events. A failed condition reads the sets again and checks again. Delete of the pointers after a detach commits, each conditional on naming the attachment detached (an attach of the same entitlement right after has pointed it at its own)",
    index: 'table',
    key: 'the set as 44; pointers `PK = A#<acct>#ENTITLEMENT#<id>#HOLDERS`, `SK = <POLICY or LICENSE>#<holderId>`',
    usedBy: 'attach, detach',
    tests: ['store/data-model', 'http/entitlements'],
  },
  {
    n: 46,
    name: 'Every holder of an entitlement',
    operation:
      'UpdateItem marking the entitlement `removing` (attaches refuse it from then on); Query (consistent) of its pointer partition; per 40 pointers BatchGetItem of their sets, then TransactWriteItems: `REMOVE` of its attribute from each set holding it (conditional on the value read, `ADD n -1, v 1`; a set changed meanwhile is read again), `SET` of its tombstone `gone#<id>` in each set a pointer names that does not hold it (an attach under way, conditional on the attribute being still absent, `ADD v 1`), and Delete of the pointers. A removed policy or license: BatchGetItem of the sets, Delete of their pointers and then of the sets, 90 per transaction, once the cascade of pattern 34 has committed',
    index: 'table',
    key: '`PK = A#<acct>#ENTITLEMENT#<id>#HOLDERS`; the sets as 44',
    usedBy: "entitlements.delete (before the entitlement's own delete); policy, license, product delete",
    tests: ['store/data-model', 'http/entitlements'],
  },
  {
    n: 47,
    name: 'The entitlement codes a license holds',
    operation:
      "One BatchGetItem: the markers of the codes asked for and the license's two sets; a code is held when its marker's `ref` is the record key of an entitlement in either set",
    index: 'table',
    key: '`PK = A#<acct>#UNIQUE#ENTITLEMENT_CODE#<code>`, the sets as 44',
    usedBy: 'validate, validate-key with `meta.scope.entitlements`',
    tests: ['store/data-model', 'http/entitlements'],
  },
];
