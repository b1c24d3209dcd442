/**
 * One headless Chromium for a test file: the one shipped inside the npm package
 * (@sparticuz/chromium), unpacked into the temp directory on first use, so the tests need no
 * browser installed on the machine.
 */
import packagedChromium from '@sparticuz/chromium';
import { type Browser, chromium } from 'playwright-core';

export async function launchBrowser(): Promise<Browser> {
  // The pages tested need no WebGL: leave the software graphics stack off.
  packagedChromium.setGraphicsMode = false;
  return chromium.launch({
    executablePath: await packagedChromium.executablePath(),
    // The package's flags for serverless hosts, less --single-process: in one process, closing a
    // page's context takes the whole browser down with it.
    // A closed network: keep Chromium from reaching for the internet at start (Playwright already
    // adds a fresh profile, --disable-background-networking, --disable-component-update, --no-first-run).
    args: [...packagedChromium.args.filter((flag) => flag !== '--single-process'), '--disable-gpu', '--disable-quic', '--disable-sync'],
    headless: true,
  });
}
