import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '../../src/testing/index.js';
import { BUILT_CLI } from '../support/cli-build.js';
import { runCli } from '../support/run-cli.js';

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempHome(): Promise<Record<string, string>> {
  const home = await mkdtemp(join(tmpdir(), 'jarvis-serve-cli-'));
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  return { HOME: home, OPENJARVIS_HOME: join(home, '.openjarvis') };
}

interface ServeProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** The OpenAI base URL the CLI printed. */
  readonly baseUrl: string;
  readonly stderr: () => string;
  readonly stdout: () => string;
  readonly exited: Promise<number | null>;
}

/** Starts `jarvis serve … --port 0` and waits for the line with its address. */
async function startServe(
  args: readonly string[],
  env: Record<string, string>,
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [BUILT_CLI, 'serve', '--port', '0', ...args], {
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
  });
  let stderr = '';
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
      const found = /at (http:\/\/\S+\/v1)/.exec(stderr);
      if (found?.[1] !== undefined) resolve(found[1]);
    });
    void exited.then(() => reject(new Error(`serve exited early: ${stderr}`)));
  });
  return { child, baseUrl, stderr: () => stderr, stdout: () => stdout, exited };
}

async function scripted(
  options: Parameters<typeof startScriptedOpenAIServer>[0],
): Promise<ScriptedOpenAIServer> {
  const server = await startScriptedOpenAIServer(options);
  cleanups.push(() => server.close());
  return server;
}

/** An OpenAI-compatible model server that trickles a streamed answer forever and records when the caller hangs up. */
async function tricklingServer(): Promise<{
  url: string;
  started: () => boolean;
  cancelled: () => boolean;
}> {
  let started = false;
  let cancelled = false;
  const timers = new Set<ReturnType<typeof setInterval>>();
  const server: Server = createServer((request, response: ServerResponse) => {
    if (request.url?.endsWith('/models')) {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ object: 'list', data: [{ id: 'm', object: 'model' }] }));
      return;
    }
    started = true;
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const timer = setInterval(() => {
      const chunk = {
        id: 'c',
        object: 'chat.completion.chunk',
        created: 0,
        model: 'm',
        choices: [{ index: 0, delta: { content: 'tick ' }, finish_reason: null }],
      };
      response.write(`data: ${JSON.stringify(chunk)}\n\n`);
    }, 10);
    timers.add(timer);
    response.on('close', () => {
      clearInterval(timer);
      timers.delete(timer);
      if (!response.writableFinished) cancelled = true;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const timer of timers) clearInterval(timer);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/v1`, started: () => started, cancelled: () => cancelled };
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(condition()).toBe(true);
}

describe('jarvis serve (built CLI)', () => {
  it('answers the openai client with a calculator run on the server, and stops on SIGTERM with 143', async () => {
    const model = await scripted({
      script: [
        { toolCalls: [{ name: 'calculator', arguments: { expression: '340*0.15' } }] },
        { content: '15% of 340 is 51.', usage: { promptTokens: 20, completionTokens: 7 } },
      ],
    });
    const env = { ...(await tempHome()), OPENJARVIS_API_KEY: 'sk-serve-secret-key' };
    const serve = await startServe(
      ['--engine', 'openai', '--base-url', model.baseUrl, '--model', 'm', '--tools', 'calculator'],
      env,
    );
    expect(serve.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const anonymous = new OpenAI({ baseURL: serve.baseUrl, apiKey: 'wrong', maxRetries: 0 });
    await expect(anonymous.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const client = new OpenAI({
      baseURL: serve.baseUrl,
      apiKey: 'sk-serve-secret-key',
      maxRetries: 0,
    });
    const completion = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'What is 15% of 340?' }],
    });
    expect(completion.choices[0]?.message.content).toBe('15% of 340 is 51.');
    expect(completion.usage?.completion_tokens).toBeGreaterThanOrEqual(7);
    const toolResult = JSON.stringify(model.requests.at(-1)?.body);
    expect(toolResult).toContain('51.0');
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(143);
    expect(serve.stderr()).toMatch(/Press Ctrl-C to stop/);
    expect(serve.stderr()).toContain(`Web page: ${serve.baseUrl.replace(/\/v1$/, '/')}`);
    expect(serve.stderr()).not.toContain('sk-serve-secret-key');
  });

  it('cancels the model request when a streaming client disconnects', async () => {
    const model = await tricklingServer();
    const serve = await startServe(
      ['--engine', 'openai', '--base-url', model.url, '--model', 'm'],
      await tempHome(),
    );
    const client = new OpenAI({ baseURL: serve.baseUrl, apiKey: 'none', maxRetries: 0 });
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: 'm', messages: [{ role: 'user', content: 'talk forever' }], stream: true },
      { signal: controller.signal },
    );
    let text = '';
    await (async () => {
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        if (text.includes('tick tick')) controller.abort();
      }
    })().catch(() => undefined);
    expect(model.started()).toBe(true);
    await until(model.cancelled);
    serve.child.kill('SIGINT');
    expect(await serve.exited).toBe(130);
    expect(serve.stdout()).toBe('');
  });

  it('refuses a non-loopback address without an API key (usage error, nothing listens)', async () => {
    const run = await runCli(['serve', '--host', '0.0.0.0', '--port', '0'], {
      env: await tempHome(),
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Refusing to listen on 0\.0\.0\.0 without an API key/);
  });
});
