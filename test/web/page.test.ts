import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '../../src/testing/index.js';
import { launchChromium, screenshotPath, type TestBrowser } from '../support/browser.js';
import { BUILT_CLI } from '../support/cli-build.js';
import { runCli } from '../support/run-cli.js';

/**
 * The web page of `jarvis serve` in a real browser: Debian's Chromium driven by playwright-core, against the built
 * CLI serving the built page, with the scripted model server as its engine. Screenshots go to `.ci/out/screenshots`.
 */

let browser: TestBrowser | undefined;
let skipped: string | undefined;
let model: ScriptedOpenAIServer | undefined;
let serve: ChildProcessWithoutNullStreams | undefined;
let serveExited: Promise<unknown> | undefined;
let home = '';
let pageUrl = '';
let page: Page | undefined;

const ENGINE_FLAGS = ['--engine', 'openai', '--model', 'm'];

/** Starts `jarvis serve --port 0` and resolves with the page's address from the line it prints. */
async function startServe(env: Record<string, string>, baseUrl: string): Promise<string> {
  const child = spawn(
    process.execPath,
    [
      BUILT_CLI,
      'serve',
      '--port',
      '0',
      ...ENGINE_FLAGS,
      '--base-url',
      baseUrl,
      '--agent',
      'orchestrator',
      '--tools',
      'calculator',
    ],
    { env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env } },
  );
  serve = child;
  serveExited = new Promise((resolve) => child.on('close', resolve));
  let stderr = '';
  return new Promise<string>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
      const found = /at (http:\/\/\S+)\/v1/.exec(stderr);
      if (found?.[1] !== undefined) resolve(`${found[1]}/`);
    });
    void serveExited?.then(() => reject(new Error(`jarvis serve exited early: ${stderr}`)));
  });
}

beforeAll(async () => {
  const launched = await launchChromium();
  if ('skipped' in launched) {
    skipped = launched.skipped;
    return;
  }
  browser = launched;
  home = await mkdtemp(join(tmpdir(), 'jarvis-web-'));
  const env = { HOME: home, OPENJARVIS_HOME: join(home, '.openjarvis') };
  model = await startScriptedOpenAIServer({
    script: [
      { toolCalls: [{ name: 'calculator', arguments: { expression: '340*0.15' } }] },
      { content: '15% of 340 is 51.', usage: { promptTokens: 20, completionTokens: 7 } },
    ],
  });
  const created = await runCli(
    ['scheduler', 'create', 'morning summary', '--type', 'cron', '--value', '0 7 * * *'],
    { env },
  );
  expect(created.code, created.stderr).toBe(0);
  const notes = join(home, 'deploy-notes.md');
  await writeFile(notes, '# Deploys\n\nThe deploy key rotates every Friday at noon.\n');
  const indexed = await runCli(['memory', 'index', notes], { env });
  expect(indexed.code, indexed.stderr).toBe(0);
  pageUrl = await startServe(env, model.baseUrl);
  page = await browser.browser.newPage({ viewport: { width: 1200, height: 800 } });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (serve !== undefined && serve.exitCode === null && serve.signalCode === null) {
    serve.kill('SIGTERM');
    await serveExited;
  }
  await model?.close();
  if (home !== '') await rm(home, { recursive: true, force: true });
});

describe('the web page of jarvis serve, in Chromium', () => {
  it('asks a question: the answer streams in with the calculator tool card', async (context) => {
    if (skipped !== undefined || page === undefined) return context.skip(skipped);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(pageUrl);
    await expect.poll(() => page?.title()).toMatch(/OpenJarvis/);
    await page.getByLabel('Message').fill('What is 15% of 340?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('15% of 340 is 51.').waitFor({ timeout: 15_000 });
    const card = page.getByRole('article', { name: 'Tool call calculator' });
    await card.waitFor();
    const cardText = await card.textContent();
    expect(cardText).toContain('340*0.15');
    expect(cardText).toContain('51');
    await page.screenshot({ path: await screenshotPath('chat-with-tool-card'), fullPage: true });
    expect(errors).toEqual([]);
  });

  it("opens the run's timeline: model and tool calls drawn as bars", async (context) => {
    if (skipped !== undefined || page === undefined) return context.skip(skipped);
    await page.getByRole('link', { name: 'View run timeline' }).last().click();
    const timeline = page.getByRole('img', { name: 'Run timeline' });
    await timeline.waitFor({ timeout: 10_000 });
    expect(await timeline.locator('rect[data-kind="model"]').count()).toBeGreaterThanOrEqual(2);
    expect(await timeline.locator('rect[data-kind="tool"]').count()).toBe(1);
    await page.screenshot({ path: await screenshotPath('run-timeline'), fullPage: true });
  });

  it('shows the scheduled task with its next run', async (context) => {
    if (skipped !== undefined || page === undefined) return context.skip(skipped);
    await page.getByRole('link', { name: 'Tasks' }).click();
    const task = page.getByRole('article', { name: /morning summary/ });
    await task.waitFor({ timeout: 10_000 });
    expect(await task.textContent()).toMatch(/next/i);
    await page.screenshot({ path: await screenshotPath('tasks'), fullPage: true });
  });

  it('searches memory', async (context) => {
    if (skipped !== undefined || page === undefined) return context.skip(skipped);
    await page.getByRole('link', { name: 'Memory' }).click();
    await page.getByLabel('Search memory').fill('deploy key');
    await page.getByRole('button', { name: 'Search' }).click();
    const hit = page.getByRole('article', { name: /deploy-notes\.md/ });
    await hit.waitFor({ timeout: 10_000 });
    expect(await hit.textContent()).toContain('rotates every Friday');
    await page.screenshot({ path: await screenshotPath('memory-search'), fullPage: true });
  });
});
