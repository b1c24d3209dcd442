/**
 * The API reference page as `npm run docs` rendered it from the description (dev/rendered-page.ts),
 * kept Brotli-compressed beside this module: a container decompresses it (about 2 ms) instead of
 * rendering it (most of the page's cold start).
 */
import { brotliDecompressSync } from 'node:zlib';
import rendered from './rendered-page.json' with { type: 'json' };

export const servedPage = (): string => brotliDecompressSync(Buffer.from(rendered.brotli, 'base64')).toString('utf8');
