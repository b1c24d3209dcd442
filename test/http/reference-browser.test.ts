/**
 * The reference page in a real headless browser: it renders from its own origin alone (no
 * request leaves for another, the CSP refuses nothing), every operation of docs/openapi.json
 * has a visible heading, and an operation opens to show its details. A full-page screenshot is
 * kept under test-output/ for a person to look at.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { METHODS, type OpenApiDescription, present } from '#shared/reference/reference-document.ts';
import served from '../../docs/openapi.json' with { type: 'json' };
import { launchBrowser } from '../support/browser.ts';
import { stack } from '../support/stack.ts';

const description: OpenApiDescription = served;
const VIEWPORT = { width: 1280, height: 720 };
const PHONE = { width: 390, height: 844 };
const SCREENSHOT = path.resolve(import.meta.dirname, '../../test-output/reference-page.png');

const operations = present(description.paths).flatMap(([, item]) => METHODS.flatMap((method) => item[method] ?? []));

let browser: Browser;
let page: Page;
const requested: string[] = [];
const complaints: string[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: VIEWPORT });
  page.on('request', (request) => requested.push(request.url()));
  // A style the CSP refused, or anything else the page got wrong, is logged as an error.
  page.on('console', (message) => message.type() === 'error' && complaints.push(message.text()));
  page.on('pageerror', (error) => complaints.push(error.message));
  expect((await page.goto(`${stack().api}/v1/docs`, { waitUntil: 'load' }))?.status()).toBe(200);
});

afterAll(async () => {
  await browser?.close();
});

/** The entry of an operation; its id holds dots, which a `#id` selector would read as classes. */
const entryOf = (operationId: string | undefined) => page.locator(`details.operation[id="op-${operationId}"]`);

it('shows a heading for every operation, under its tag, with the table of contents beside', async () => {
  expect(operations.length).toBeGreaterThan(0);
  for (const operation of operations) {
    const heading = entryOf(operation.operationId).locator('> summary h3');
    await expect.poll(() => heading.isVisible(), { message: operation.operationId }).toBe(true);
    expect(await heading.textContent()).toContain(operation.summary);
    expect(await page.locator(`nav.toc a[href="#op-${operation.operationId}"]`).isVisible()).toBe(true);
  }
  // The style applied: method badges are coloured, the contents a column of their own.
  expect(await page.evaluate("getComputedStyle(document.querySelector('main .method')).color")).toBe('rgb(255, 255, 255)');
  const [toc, main] = await Promise.all([page.locator('nav.toc').boundingBox(), page.locator('main').boundingBox()]);
  expect(toc && main && toc.x + toc.width <= main.x).toBe(true);
});

it('opens an operation to its details, and a response to its schema', async () => {
  const [first] = operations;
  const entry = entryOf(first?.operationId);
  const body = entry.locator('.operation-body');
  expect(await body.isVisible()).toBe(false);
  await entry.locator('> summary').click();
  await expect.poll(() => body.isVisible()).toBe(true);
  expect(await entry.getAttribute('open')).toBe('');
  expect(await body.locator('h4', { hasText: 'Responses' }).isVisible()).toBe(true);

  const response = body.locator('details.response').first();
  const media = response.locator('.media').first();
  expect(await media.isVisible()).toBe(false);
  await response.locator('> summary').click();
  await expect.poll(() => media.isVisible()).toBe(true);
});

it('loads nothing from another origin, and the browser refuses nothing', () => {
  const origin = new URL(stack().api).origin;
  expect(requested.length).toBeGreaterThan(0);
  expect(requested.filter((url) => new URL(url).origin !== origin)).toEqual([]);
  expect(complaints).toEqual([]);
});

it('renders a page taller than the window, as a screenshot that is not blank', async () => {
  await page.setViewportSize(PHONE);
  const [toc, main] = await Promise.all([page.locator('nav.toc').boundingBox(), page.locator('main').boundingBox()]);
  expect(toc && main && toc.y + toc.height <= main.y).toBe(true);
  mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  const png = readFileSync(SCREENSHOT);
  const height = Number(await page.evaluate('document.documentElement.scrollHeight'));
  // The PNG's IHDR chunk: width and height, big-endian, after the 8-byte signature and the chunk's length and type.
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  expect({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) }).toEqual({ width: PHONE.width, height });
  expect(height).toBeGreaterThan(PHONE.height);
  // A blank page of this size compresses to a few kilobytes; text, badges and rules take far more.
  expect(png.length).toBeGreaterThan(20_000);
});
