import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Where Debian's `chromium` package puts the browser (`apt-get install chromium`); `CHROMIUM_PATH` overrides. */
const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/**
 * Where browser tests keep their screenshots for people to look at: `.ci/out/screenshots` of the checkout
 * (CI's output folder; `JARVIS_TEST_ARTIFACTS` overrides the `.ci/out` part).
 */
export const SCREENSHOT_FOLDER = join(
  process.env.JARVIS_TEST_ARTIFACTS ?? join(ROOT, '.ci', 'out'),
  'screenshots',
);

/** A headless Chromium of this test file, and how to end it (the browser and its profile folder). */
export interface TestBrowser {
  readonly browser: Browser;
  readonly close: () => Promise<void>;
}

/** The Chromium executable to drive, or undefined when none is installed. */
export function chromiumPath(): string | undefined {
  const configured = process.env.CHROMIUM_PATH;
  if (configured !== undefined && configured !== '') return configured;
  return CHROMIUM_CANDIDATES.find((candidate) => existsSync(candidate));
}

/**
 * Starts Debian's Chromium headless through playwright-core (npm's browser downloads do not work here), without
 * the background connections a closed network refuses; as root it needs `--no-sandbox`. Without a Chromium it
 * answers `{ skipped }` saying why, for `context.skip` (and throws under `CI`, which never skips).
 */
export async function launchChromium(): Promise<TestBrowser | { readonly skipped: string }> {
  const executablePath = chromiumPath();
  if (executablePath === undefined) {
    const skipped = 'skipped: Chromium is not installed (apt-get install chromium)';
    // CI never skips: .ci/run installs it.
    if (process.env.CI !== undefined && process.env.CI !== '') throw new Error(skipped);
    return { skipped };
  }
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    // playwright gives the browser a fresh profile folder of its own and removes it on close.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
  return { browser, close: () => browser.close().catch(() => undefined) };
}

/** The path of a screenshot named `name` (the folder is created). */
export async function screenshotPath(name: string): Promise<string> {
  await mkdir(SCREENSHOT_FOLDER, { recursive: true });
  return join(SCREENSHOT_FOLDER, `${name}.png`);
}
