/**
 * The hosted reset form in a real headless browser: open the link from the mail, choose a
 * password, and log in with it.
 */
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.ts';
import { basic, call, newAccount, newUser, type TestAccount } from '../support/client.ts';
import { resetLinkOf, waitForMail } from '../support/mail.ts';

let account: TestAccount;
let browser: Browser;

beforeAll(async () => {
  account = await newAccount();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

async function openResetLink(address: string) {
  expect((await call('POST', `${account.path}/passwords`, { body: { meta: { email: address } } })).status).toBe(202);
  const link = resetLinkOf(await waitForMail(address));
  const page = await browser.newPage();
  await page.goto(link.url);
  return { page, link };
}

it('sets a new password through the form from the mail, then logs in with it', async () => {
  const user = await newUser(account, { email: `browser-${randomUUID().slice(0, 8)}@mail.example` });
  const { page } = await openResetLink(user.email);
  await page.fill('#password', 'chosen in a browser');
  await page.fill('#confirmation', 'chosen in a browser');
  await page.click('#submit');
  await expect.poll(() => page.textContent('#status')).toContain('Your password has been changed');
  await page.close();
  expect((await call('POST', `${account.path}/tokens`, { authorization: basic(user.email, 'chosen in a browser') })).status).toBe(201);
});

it('shows the error in plain words: passwords that differ, then a password too short', async () => {
  const user = await newUser(account, { email: `browser-${randomUUID().slice(0, 8)}@mail.example` });
  const { page } = await openResetLink(user.email);
  await page.fill('#password', 'one password');
  await page.fill('#confirmation', 'another password');
  await page.click('#submit');
  await expect.poll(() => page.textContent('#status')).toContain('not the same');
  // The browser's own minlength check would stop a short password: lift it to reach the API's rule.
  await page.evaluate("document.querySelectorAll('input').forEach((input) => input.removeAttribute('minlength'))");
  await page.fill('#password', 'short');
  await page.fill('#confirmation', 'short');
  await page.click('#submit');
  await expect.poll(() => page.textContent('#status')).toContain('too short');
  await page.close();
});

it('says so when the link was used already', async () => {
  const user = await newUser(account, { email: `browser-${randomUUID().slice(0, 8)}@mail.example` });
  const { page, link } = await openResetLink(user.email);
  const used = await call('POST', `${account.path}/users/${user.id}/actions/reset-password`, {
    body: { meta: { passwordResetToken: link.token, newPassword: 'used elsewhere first' } },
  });
  expect(used.status).toBe(200);
  await page.fill('#password', 'chosen in a browser');
  await page.fill('#confirmation', 'chosen in a browser');
  await page.click('#submit');
  await expect.poll(() => page.textContent('#status')).toContain('not valid, or it has been used already');
  await page.close();
});
