/**
 * The local stack's first start: an account `demo` with an admin user, so a newcomer can call
 * the API at once. Nothing happens when the account exists already.
 */
import { randomBytes } from 'node:crypto';
import { findAccount } from '#shared/resources/accounts/entity.ts';
import { createAccount } from '#shared/resources/accounts/service.ts';

export const DEMO = { slug: 'demo', name: 'Demo', email: 'admin@demo.example' };

export async function seedDemoAccount(): Promise<{ email: string; password: string; token: string } | null> {
  if (await findAccount(DEMO.slug)) return null;
  const password = randomBytes(12).toString('base64url');
  const { token } = await createAccount({ ...DEMO, password });
  return { email: DEMO.email, password, token };
}
