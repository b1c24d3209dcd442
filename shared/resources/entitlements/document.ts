import { accountRelationship, type ResourceObject, resourcePath, toOne } from '../../jsonapi.ts';
import type { Attachment } from './attachments.ts';
import type { EntitlementRecord } from './entity.ts';

export function entitlementDocument(entitlement: EntitlementRecord): ResourceObject {
  return {
    id: entitlement.id,
    type: 'entitlements',
    attributes: {
      name: entitlement.name,
      code: entitlement.code,
      metadata: entitlement.metadata,
      created: entitlement.created,
      updated: entitlement.updated,
    },
    relationships: {
      account: accountRelationship(entitlement.accountId),
      environment: toOne(entitlement.accountId, 'environments', entitlement.environmentId),
    },
    links: { self: resourcePath(entitlement.accountId, 'entitlements', entitlement.id) },
  };
}

/**
 * A `policy-entitlements` or `license-entitlements` object: one attachment, which never changes
 * (updated is created). It has no path of its own: its link is the holder's entitlements.
 */
export function attachmentDocument(attachment: Attachment): ResourceObject {
  const holderPath = resourcePath(attachment.accountId, attachment.holder, attachment.holderId);
  const [type, relationship] = attachment.holder === 'policies' ? ['policy-entitlements', 'policy'] : ['license-entitlements', 'license'];
  return {
    id: attachment.id,
    type,
    attributes: { created: attachment.created, updated: attachment.created },
    relationships: {
      account: accountRelationship(attachment.accountId),
      environment: toOne(attachment.accountId, 'environments', attachment.environmentId),
      entitlement: toOne(attachment.accountId, 'entitlements', attachment.entitlementId),
      [relationship]: toOne(attachment.accountId, attachment.holder, attachment.holderId),
    },
    links: { related: `${holderPath}/entitlements` },
  };
}
