/**
 * A request naming its account by slug costs what one naming it by id costs once the container
 * has met the slug (shared/resources/accounts/entity.ts, `accountIdGuess`): the same DynamoDB
 * requests, the guessed account's item read in place of the slug's marker. The guess never
 * decides: a slug moved to another account (by an operator, in the table: the marker and both
 * accounts' items) resolves to its new holder on the next request, and the old holder's records
 * and credentials stay its own.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import * as accounts from '#shared/resources/accounts/handlers.ts';
import { createAccount } from '#shared/resources/accounts/service.ts';
import * as products from '#shared/resources/products/handlers.ts';
import { accountKey, accountSlugKey } from '#shared/store/keys.ts';
import { invoke, onDynamoCommand } from '../support/in-process.ts';
import { table, tableName } from '../support/table.ts';

/** The DynamoDB commands the service's clients have sent, by name, in order. */
const sent: string[] = [];
onDynamoCommand((name) => sent.push(name));

const handlers = {
  'accounts.retrieve': accounts.retrieve(),
  'products.create': products.create(),
  'products.retrieve': products.retrieve(),
};

type Made = Awaited<ReturnType<typeof createAccount>>;

const call = (
  operation: keyof typeof handlers,
  { account, token, path, id, body }: { account: string; token: string; path: string; id?: string; body?: unknown },
): Promise<{ status: number; body: { data?: { id: string }; errors?: { code?: string }[] } }> =>
  invoke(handlers[operation], operation, { account, token, route: path, params: id ? { id } : {}, body });

/** The DynamoDB commands `request` sends. */
async function commandsOf(request: () => Promise<unknown>): Promise<string[]> {
  const from = sent.length;
  await request();
  return sent.slice(from);
}

const newAccount = (name: string) => {
  const slug = `${name}-${randomUUID().slice(0, 8)}`;
  return createAccount({ slug, name, email: `admin@${slug}.example`, password: 'a long password' });
};

let a: Made;
let productId: string;

beforeAll(async () => {
  a = await newAccount('slug-a');
  const made = await call('products.create', {
    account: a.account.id,
    token: a.token,
    path: '/products',
    body: { data: { type: 'products', attributes: { name: 'By slug' } } },
  });
  expect(made.status).toBe(201);
  productId = made.body.data?.id ?? '';
});

describe('an account named by slug', () => {
  it('is read with the same DynamoDB requests as by id once the slug has been met', async () => {
    const get = (account: string) => () => call('products.retrieve', { account, token: a.token, path: '/products/{id}', id: productId });
    const byId = await commandsOf(get(a.account.id));
    // A slug this container has not met: its marker first, then the account and the rest one by one.
    const fresh = await newAccount('slug-fresh');
    const firstBySlug = await commandsOf(() =>
      call('accounts.retrieve', { account: fresh.account.slug, token: fresh.token, path: '', id: undefined }),
    );
    expect(firstBySlug.length).toBeGreaterThan(1);
    await get(a.account.slug)();
    const bySlug = await commandsOf(get(a.account.slug));
    expect(byId).toEqual(['BatchGetItemCommand']);
    expect(bySlug).toEqual(byId);
    expect((await get(a.account.slug)()).body.data?.id).toBe(productId);
  });

  it('resolves to the account its marker names now, not to the one the container met under it', async () => {
    const b = await newAccount('slug-b');
    const slug = a.account.slug;
    expect((await call('accounts.retrieve', { account: slug, token: a.token, path: '' })).body.data?.id).toBe(a.account.id);

    // An operator gives A's slug to B: A takes another, the marker names B.
    const moved = `moved-${randomUUID().slice(0, 8)}`;
    await table().send(new PutCommand({ TableName: tableName(), Item: { ...accountSlugKey(moved), accountId: a.account.id } }));
    await table().send(new PutCommand({ TableName: tableName(), Item: { ...accountSlugKey(slug), accountId: b.account.id } }));
    for (const [account, value] of [
      [a.account.id, moved],
      [b.account.id, slug],
    ] as const) {
      await table().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: accountKey(account),
          UpdateExpression: 'SET slug = :slug',
          ExpressionAttributeValues: { ':slug': value },
        }),
      );
    }

    const asB = await call('accounts.retrieve', { account: slug, token: b.token, path: '' });
    expect(asB.status).toBe(200);
    expect(asB.body.data?.id).toBe(b.account.id);
    // A's credential and A's records are not reached through the slug B now holds.
    expect((await call('accounts.retrieve', { account: slug, token: a.token, path: '' })).status).toBe(401);
    const product = await call('products.retrieve', { account: slug, token: b.token, path: '/products/{id}', id: productId });
    expect(product.status).toBe(404);
    // A answers under its new slug.
    expect((await call('accounts.retrieve', { account: moved, token: a.token, path: '' })).body.data?.id).toBe(a.account.id);
  });

  it('answers 404 under a slug freed since, not the account the container met under it; a slug in capitals is the same slug', async () => {
    const c = await newAccount('slug-c');
    const slug = c.account.slug;
    expect((await call('accounts.retrieve', { account: slug.toUpperCase(), token: c.token, path: '' })).body.data?.id).toBe(c.account.id);

    // An operator renames C: its old slug's marker goes, nobody takes the slug.
    const renamed = `renamed-${randomUUID().slice(0, 8)}`;
    await table().send(new DeleteCommand({ TableName: tableName(), Key: accountSlugKey(slug) }));
    await table().send(new PutCommand({ TableName: tableName(), Item: { ...accountSlugKey(renamed), accountId: c.account.id } }));
    await table().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: accountKey(c.account.id),
        UpdateExpression: 'SET slug = :slug',
        ExpressionAttributeValues: { ':slug': renamed },
      }),
    );

    const freed = await call('accounts.retrieve', { account: slug, token: c.token, path: '' });
    expect(freed.status).toBe(404);
    expect(freed.body.errors?.[0]?.code).toBe('NOT_FOUND');
    expect((await call('products.retrieve', { account: slug, token: c.token, path: '/products/{id}', id: productId })).status).toBe(404);
    expect((await call('accounts.retrieve', { account: renamed, token: c.token, path: '' })).body.data?.id).toBe(c.account.id);
  });
});
