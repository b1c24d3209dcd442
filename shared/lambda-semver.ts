/**
 * What the stack's bundles take in place of `semver` (an esbuild alias in lib/service-function.ts).
 * The X-Ray SDK requires it in one place only: the patcher of the AWS SDK v2 (`captureAWS`), to
 * check that SDK's version; the service traces its v3 clients and never calls that patcher, yet
 * the whole package (about 28 KB) would ride in every bundle. Run from source, nothing changes.
 */
export function gte(): never {
  throw new Error('semver is not bundled: only the X-Ray patcher of the AWS SDK v2 would need it, which the service does not use');
}
