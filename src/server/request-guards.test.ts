import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistries } from '../core/index.js';
import { Jarvis } from '../sdk/index.js';
import type { JarvisSystem } from '../system/index.js';
import { assistantReply, ScriptedEngine } from '../testing/index.js';
import { createJarvisServer } from './jarvis-server.js';
import { hostName } from './request-guards.js';
import { type RunningJarvisServer, startJarvisServer } from './start-server.js';

let home: string;
let jarvis: Jarvis;
let server: RunningJarvisServer;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'jarvis-guards-'));
  jarvis = new Jarvis({
    engine: new ScriptedEngine([assistantReply('Hi.')]),
    env: { OPENJARVIS_HOME: home },
    cwd: home,
    registries: createRegistries(),
  });
  server = await startJarvisServer({ jarvis, port: 0 });
});

afterAll(async () => {
  await server.close();
  await jarvis.close();
  await rm(home, { recursive: true, force: true });
});

/** One raw HTTP request (fetch would not let the test choose `Host`). */
function send(
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: body === undefined ? 'GET' : 'POST',
        headers,
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

describe('the DNS-rebinding guard of a server on a loopback address', () => {
  it('answers localhost, 127.0.0.1 and [::1] with any port', async () => {
    const port = new URL(server.url).port;
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, 'LOCALHOST'])
      expect((await send('/health', { host })).status).toBe(200);
  });

  it('refuses another name with a 403 that says what to use, on every route', async () => {
    for (const path of ['/health', '/', '/v1/models', '/api/tools']) {
      const answer = await send(path, { host: 'attacker.example:8000' });
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body)).toMatchObject({
        error: { code: 'host_not_allowed', message: expect.stringContaining('127.0.0.1') },
      });
    }
  });
});

describe('the Host check on every route of the app', () => {
  const app = createJarvisServer({
    system: {} as JarvisSystem,
    allowedHosts: ['localhost'],
    apiKey: 'sk-test',
  });

  it('refuses a foreign Host on every registered route and on unknown paths, before anything else', async () => {
    const routes = app.routes.map((route) => ({
      method: route.method === 'ALL' ? 'GET' : route.method,
      path: route.path.replace(/:\w+/g, 'x').replace(/\*$/, 'anything'),
    }));
    routes.push({ method: 'GET', path: '/no/such/path' }, { method: 'POST', path: '/v1/nothing' });
    expect(routes.map((route) => route.path)).toContain('/v1/chat/completions');
    for (const { method, path } of routes) {
      const answer = await app.request(path, {
        method,
        headers: { host: 'attacker.example', 'content-type': 'application/json' },
        ...(method === 'GET' || method === 'HEAD' ? {} : { body: '{}' }),
      });
      expect(answer.status, `${method} ${path}`).toBe(403);
    }
  });

  it('accepts the allowed Host again after refusing another one', async () => {
    const headers = (host: string) => ({ headers: { host } });
    expect((await app.request('/v1/models', headers('localhost:8000'))).status).toBe(401);
    expect((await app.request('/v1/models', headers('evil:8000'))).status).toBe(403);
    expect((await app.request('/v1/models', headers('localhost:8000'))).status).toBe(401);
    expect((await app.request('/v1/nothing', headers('localhost'))).status).toBe(401);
  });
});

describe('JSON bodies only', () => {
  it('refuses a text/plain or form chat request with 415 (a page elsewhere could send those unasked)', async () => {
    const body = JSON.stringify({ model: 'scripted', messages: [{ role: 'user', content: 'Hi' }] });
    const host = new URL(server.url).host;
    for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
      for (const path of ['/v1/chat/completions', '/api/chat']) {
        const answer = await send(path, { host, 'content-type': type }, body);
        expect(answer.status).toBe(415);
        expect(answer.body).toContain('application/json');
      }
    }
  });
});

describe('hostName', () => {
  it('drops the port and lower-cases', () => {
    expect(hostName('LocalHost:8000')).toBe('localhost');
    expect(hostName('[::1]:80')).toBe('[::1]');
    expect(hostName('127.0.0.1')).toBe('127.0.0.1');
    expect(hostName('')).toBe('');
  });
});
