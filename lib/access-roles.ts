import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Access } from '../shared/access.ts';
import { grantAccess, type ServiceResources } from './access.ts';

/**
 * One IAM role per distinct access set of a route family's functions. Functions that declare the
 * same access get exactly the same grants, so sharing their role widens nothing, and it keeps the
 * family's stack far below CloudFormation's 500 resources (a role and a policy per function would not).
 */
export class AccessRoles extends Construct {
  private readonly roles = new Map<string, Role>();

  constructor(
    scope: Construct,
    id: string,
    private readonly resources: ServiceResources,
    /** The one log group the functions of these roles write to; they may write to no other. */
    private readonly logGroup: ILogGroup,
  ) {
    super(scope, id);
  }

  roleFor(access: readonly Access[]): Role {
    const key = [...new Set(access)].sort().join(' ');
    let role = this.roles.get(key);
    if (!role) {
      const name = key ? key.replace(/[^a-z]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase()) : 'None';
      role = new Role(this, `${name.charAt(0).toUpperCase()}${name.slice(1)}`, {
        assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
        description: `Lambda functions of the API with access: ${key || 'none'}`,
      });
      // Rather than AWS's basic execution policy, which lets a role write to any log group.
      this.logGroup.grantWrite(role);
      grantAccess(this, role, access, this.resources);
      this.roles.set(key, role);
    }
    return role;
  }
}
