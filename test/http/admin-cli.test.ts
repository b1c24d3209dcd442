/**
 * The operator CLI (docs/rules.md §12: accounts are created by the operator CLI with their first
 * admin user): `node --import tsx bin/admin.ts create-account ...`, run as a real process
 * against the test run's local stack, then checked over HTTP.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { basic, call } from '../support/client.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with the environment the test setup gives (TABLE_NAME, AWS_ENDPOINT_URL_DYNAMODB, ...). */
function admin(...args: string[]): Promise<Run> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

const slug = () => `cli-${randomUUID().slice(0, 8)}`;
const emailFor = (label: string) => `${label}-${randomUUID().slice(0, 8)}@cli.example`;
const PASSWORD = 'operator password';

function createAccount(values: { slug: string; name?: string; email: string; password?: string }) {
  return admin(
    'create-account',
    '--slug',
    values.slug,
    '--name',
    values.name ?? 'CLI Account',
    '--email',
    values.email,
    '--password',
    values.password ?? PASSWORD,
  );
}

/** Parses stdout, which must be exactly one JSON object (one line). */
function output(run: Run) {
  expect(run.code, run.stderr).toBe(0);
  const lines = run.stdout.split('\n').filter((line) => line.trim() !== '');
  expect(lines).toHaveLength(1);
  const parsed = JSON.parse(lines[0]!);
  expect(typeof parsed).toBe('object');
  expect(Array.isArray(parsed)).toBe(false);
  return parsed as { account: { id: string; slug: string }; user: { id: string; email: string }; token: string };
}

function expectFailure(run: Run, message?: RegExp) {
  expect(run.code).toBe(1);
  expect(run.stdout.trim()).toBe('');
  expect(run.stderr.trim().length).toBeGreaterThan(0);
  if (message) expect(run.stderr).toMatch(message);
}

/**
 * Each run of the CLI is a new Node process with tsx (a second or more), so the runs are few
 * and shared: the account made by the first test is the one the duplicate-slug test collides
 * with, and the slug an invalid e-mail failed to take is the one the last test takes.
 */
describe('admin create-account', () => {
  const first = { slug: slug(), email: emailFor('owner') };
  let created: ReturnType<typeof output>;
  const secondEmail = emailFor('second');
  const freeSlug = slug();

  it('prints exactly {account:{id,slug}, user:{id,email}, token}, and the token works against the API', async () => {
    created = output(await createAccount(first));
    expect(Object.keys(created).sort()).toEqual(['account', 'token', 'user']);
    expect(created.account).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), slug: first.slug });
    expect(created.user).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), email: first.email });
    expect(created.token).toMatch(/^admin-[0-9a-f]{64}$/);

    const bySlug = await call('GET', `/v1/accounts/${first.slug}`, { token: created.token });
    expect(bySlug.status).toBe(200);
    expect(bySlug.body.data).toMatchObject({
      id: created.account.id,
      attributes: { slug: first.slug, name: 'CLI Account', protected: false },
    });
    expect((await call('GET', `/v1/accounts/${created.account.id}`, { token: created.token })).status).toBe(200);

    // The first user is an admin who can log in with the password given.
    const me = await call('GET', `/v1/accounts/${first.slug}/users/${created.user.id}`, { token: created.token });
    expect(me.status).toBe(200);
    expect(me.body.data.attributes).toMatchObject({ email: first.email, role: 'admin', status: 'ACTIVE' });
    const login = await call('POST', `/v1/accounts/${first.slug}/tokens`, { authorization: basic(first.email, PASSWORD) });
    expect(login.status).toBe(201);
    expect(login.body.data.attributes.kind).toBe('admin-token');
  });

  it('refuses a duplicate slug with exit 1 and a message on stderr, writing nothing', async () => {
    expect(created, 'needs the account of the first test').toBeDefined();
    expectFailure(await createAccount({ slug: first.slug, name: 'Intruder', email: secondEmail }), new RegExp(first.slug));

    // The first account is as it was: its name, its one user, and no way in for the second e-mail.
    const account = await call('GET', `/v1/accounts/${first.slug}`, { token: created.token });
    expect(account.status).toBe(200);
    expect(account.body.data.id).toBe(created.account.id);
    expect(account.body.data.attributes.name).toBe('CLI Account');
    expect((await call('POST', `/v1/accounts/${first.slug}/tokens`, { authorization: basic(secondEmail, PASSWORD) })).status).toBe(401);
    const users = await call('GET', `/v1/accounts/${first.slug}/users`, { token: created.token });
    expect(users.status, JSON.stringify(users.body)).toBe(200);
    expect(users.body.links.meta.count).toBe(1);
    expect(users.body.data.map((u: any) => u.id)).toEqual([created.user.id]);
  });

  it('refuses a missing flag with exit 1, naming it', async () => {
    const missing = slug();
    expectFailure(await admin('create-account', '--slug', missing, '--name', 'No password', '--email', emailFor('nopw')), /--password/);
    expect((await call('GET', `/v1/accounts/${missing}`)).status).toBe(404);
  });

  it('refuses an invalid slug with exit 1', async () => {
    expectFailure(await createAccount({ slug: 'Bad Slug!', email: emailFor('bad') }), /slug/i);
  });

  it('refuses an invalid e-mail with exit 1 and leaves the slug free', async () => {
    expectFailure(await createAccount({ slug: freeSlug, email: 'not-an-email' }));
    expect((await call('GET', `/v1/accounts/${freeSlug}`)).status).toBe(404);
  });

  it('lets the slug of a failed run, and the e-mail of a refused duplicate, make a new account', async () => {
    const later = output(await createAccount({ slug: freeSlug, email: secondEmail }));
    expect(later.account.slug).toBe(freeSlug);
    expect(later.user.email).toBe(secondEmail);
    expect((await call('POST', `/v1/accounts/${freeSlug}/tokens`, { authorization: basic(secondEmail, PASSWORD) })).status).toBe(201);
  });
});
