/**
 * Turns a stable name from the route table or the queue definitions into a construct id:
 * `users.create` → `UsersCreate`, `notFound` → `NotFound`, `webhooks` → `Webhooks`.
 * Construct ids feed CloudFormation logical ids, so renaming an operation replaces its function.
 */
export function constructIdOf(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** Lambda's limit on a function's name. */
const FUNCTION_NAME_MAX = 64;

/**
 * The name of an operation's function: the service's stack name and the operation, e.g.
 * `LicensingService-LicensesValidateKey`. Fixed rather than generated, so that what watches the
 * functions (lib/monitoring.ts, in a nested stack of its own) names them without taking a value
 * from every family's stack, and an operator finds a route's function by its operation.
 */
export function functionNameOf(stackName: string, operation: string): string {
  const name = `${stackName}-${constructIdOf(operation)}`;
  if (name.length > FUNCTION_NAME_MAX) {
    throw new Error(`The function name ${name} is longer than Lambda's ${FUNCTION_NAME_MAX} characters: choose a shorter stack name`);
  }
  return name;
}
