/**
 * TRANSITION: the operations of the route table whose families do not declare them yet
 * (shared/api/<family>.ts). They are absent from the API's description, so the HTTP tests do not
 * check their answers against it, and the route table's test lets them lack a declaration.
 * Everything else is strict. A family that declares its operations removes its lines here (the
 * test names any line left over); this file goes when the list is empty.
 */
export const UNDECLARED_OPERATIONS: ReadonlySet<string> = new Set([
  // Accounts
  'accounts.retrieve',
  'accounts.update',
  // Users
  'users.create',
  'users.list',
  'users.retrieve',
  'users.update',
  'users.delete',
  'users.ban',
  'users.unban',
  'users.resetPassword',
  'users.tokens',
  'users.licenses',
  'users.machines',
  'users.products',
  // Tokens
  'tokens.generate',
  'tokens.list',
  'tokens.retrieve',
  'tokens.revoke',
  // Password resets
  'passwords.request',
  'passwords.form',
  // Environments
  'environments.create',
  'environments.list',
  'environments.retrieve',
  'environments.update',
  'environments.delete',
  'environments.tokens.list',
  // Products
  'products.create',
  'products.list',
  'products.retrieve',
  'products.update',
  'products.delete',
  // Policies
  'policies.create',
  'policies.list',
  'policies.retrieve',
  'policies.update',
  'policies.delete',
  // Licenses
  'licenses.create',
  'licenses.list',
  'licenses.retrieve',
  'licenses.update',
  'licenses.delete',
  'licenses.validate',
  'licenses.validateKey',
  'licenses.machines',
  'licenses.policy',
  'licenses.product',
  'licenses.owner',
  // Machines
  'machines.create',
  'machines.list',
  'machines.retrieve',
  'machines.update',
  'machines.delete',
  'machines.components',
  'machines.license',
  // Webhook endpoints
  'webhookEndpoints.create',
  'webhookEndpoints.list',
  'webhookEndpoints.retrieve',
  'webhookEndpoints.update',
  'webhookEndpoints.delete',
  // Webhook events
  'webhookEvents.list',
  'webhookEvents.retrieve',
  'webhookEvents.delete',
  'webhookEvents.retry',
]);
