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
