/**
 * The operator CLI: `npm run admin -- <command> [--flag value ...]`.
 *
 *   create-account --slug <slug> --name <name> --email <email> --password <password>
 *
 * Against a deployed stack, set TABLE_NAME and SIGNING_KMS_KEY (the stack's outputs TableName and
 * SigningKeyArn: a new account's signing key is sealed with it), and the usual AWS credentials and
 * region. Without
 * TABLE_NAME it talks to the running local stack, whose endpoints `npm start` records in
 * <DATA_DIR>/stack.json. Prints one JSON object on success; a clear message and exit status 1
 * otherwise, having written nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ActionRefused, Conflict, InputInvalid, LimitReached, RuleBroken } from '../shared/errors.ts';
import { RecordNotFound } from '../shared/store/errors.ts';

const COMMANDS = ['create-account'] as const;

function fail(message: string): never {
  process.stderr.write(`admin: ${message}\n`);
  process.exit(1);
}

/** Points the SDK at the running local stack when no table is configured. */
function useLocalStackUnlessConfigured() {
  if (process.env.TABLE_NAME) return;
  const file = resolve(process.env.DATA_DIR ?? '.data', 'stack.json');
  if (!existsSync(file)) fail('TABLE_NAME is not set and no local stack is running (start one with `npm start`)');
  const stack = JSON.parse(readFileSync(file, 'utf8')) as { tableName: string; dynamodb: string; region: string; masterKeyFile: string };
  process.env.TABLE_NAME = stack.tableName;
  process.env.AWS_ENDPOINT_URL_DYNAMODB ??= stack.dynamodb;
  process.env.AWS_REGION ??= stack.region;
  process.env.SEALING_MASTER_KEY_FILE ??= stack.masterKeyFile;
  process.env.AWS_ACCESS_KEY_ID ??= 'local';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
}

async function createAccountCommand(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      slug: { type: 'string' },
      name: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
    },
    strict: true,
  });
  const missing = (['slug', 'name', 'email', 'password'] as const).filter((flag) => !values[flag]);
  if (missing.length) fail(`missing ${missing.map((m) => `--${m}`).join(', ')}`);
  useLocalStackUnlessConfigured();
  const { createAccount } = await import('../shared/resources/accounts/service.ts');
  try {
    const { account, user, token } = await createAccount(values as Required<typeof values>);
    process.stdout.write(
      `${JSON.stringify({ account: { id: account.id, slug: account.slug }, user: { id: user.id, email: user.email }, token })}\n`,
    );
  } catch (error) {
    if (isServiceFault(error)) fail(error.message);
    throw error;
  }
}

/** The service's faults (shared/errors.ts, the store's): their messages say what to fix. */
const SERVICE_FAULTS = [RuleBroken, ActionRefused, Conflict, InputInvalid, LimitReached, RecordNotFound];

const isServiceFault = (error: unknown): error is Error => SERVICE_FAULTS.some((fault) => error instanceof fault);

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  if (!command || !(COMMANDS as readonly string[]).includes(command)) {
    fail(
      `usage: npm run admin -- ${COMMANDS.join('|')} [options]\n  create-account --slug <slug> --name <name> --email <email> --password <password>`,
    );
  }
  try {
    await createAccountCommand(rest);
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
}

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
await main();
