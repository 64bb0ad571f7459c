import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createAdaptorServer } from '@hono/node-server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JarvisSystem } from '../system/index.js';
import { createJarvisServer } from './jarvis-server.js';
import {
  createWebAssets,
  findWebFolder,
  WEB_NOT_BUILT_TEXT,
  webFolderCandidates,
} from './web-assets.js';

let root: string;
let web: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'jarvis-web-assets-'));
  web = join(root, 'web');
  await mkdir(web);
  await writeFile(join(root, 'secret.js'), 'TOP-SECRET');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function build(): Promise<void> {
  await writeFile(join(web, 'index.html'), '<!doctype html><title>OpenJarvis</title>');
  await writeFile(join(web, 'app-ABCD1234.js'), 'console.log(1)');
  await writeFile(join(web, 'app.css'), 'body{}');
}

function get(path: string, folder = web): Promise<Response> {
  return Promise.resolve(createWebAssets({ folder }).fetch(new Request(`http://page${path}`)));
}

function expectSafeHeaders(response: Response): void {
  expect(response.headers.get('content-security-policy')).toMatch(/^default-src 'self'/);
  expect(response.headers.get('content-security-policy')).not.toContain('unsafe-inline');
  expect(response.headers.get('x-content-type-options')).toBe('nosniff');
}

/** A GET sent as written (node's client does not resolve `..` the way `fetch` does). */
async function rawGet(server: Server, path: string): Promise<{ status: number; body: string }> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, path, method: 'GET' }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (piece: string) => {
        body += piece;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

describe('createWebAssets', () => {
  it('answers / with 503 and a page saying how to build it while the page is not built', async () => {
    const response = await get('/');
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toContain(WEB_NOT_BUILT_TEXT);
    expectSafeHeaders(response);
    expect(WEB_NOT_BUILT_TEXT).toBe('the web page is not built: run npm run build');
  });

  it('serves the page and its assets with strict headers; named-by-content assets are cached for good', async () => {
    await build();
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>OpenJarvis</title>');
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expectSafeHeaders(page);

    const script = await get('/assets/app-ABCD1234.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expectSafeHeaders(script);
    const style = await get('/assets/app.css');
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(style.headers.get('cache-control')).toBe('no-cache');

    expect((await get('/assets/missing-ABCD1234.js')).status).toBe(404);
    expect((await get('/assets/index.html')).status).toBe(404);
  });

  it('never serves a file outside the folder, however the path is written', async () => {
    await build();
    await writeFile(join(web, '.hidden.js'), 'HIDDEN');
    const server = createAdaptorServer({ fetch: createWebAssets({ folder: web }).fetch }) as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      for (const path of [
        '/assets/../secret.js',
        '/assets/../../secret.js',
        '/assets/..%2Fsecret.js',
        '/assets/%2e%2e%2fsecret.js',
        '/assets/%2E%2E/secret.js',
        '/assets/.hidden.js',
        '/assets/..\\secret.js',
      ]) {
        const answer = await rawGet(server, path);
        expect(answer.status, path).not.toBe(200);
        expect(answer.body, path).not.toContain('SECRET');
        expect(answer.body, path).not.toContain('HIDDEN');
      }
      expect((await rawGet(server, '/assets/app-ABCD1234.js')).status).toBe(200);
    } finally {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
  });

  it('looks for the built page beside dist/server, dist/bin and, from the sources, in dist/', async () => {
    const folder = (path: string) => webFolderCandidates(pathToFileURL(path).href);
    expect(folder('/x/dist/server/web-assets.js')[0]).toBe('/x/dist/web');
    expect(folder('/x/dist/bin/jarvis.js')[0]).toBe('/x/dist/web');
    expect(folder('/x/src/server/web-assets.ts')).toContain('/x/dist/web');
    await build();
    expect(findWebFolder([join(root, 'nothing'), web])).toBe(web);
    expect(findWebFolder([join(root, 'nothing')])).toBeUndefined();
  });

  it('is mounted at / by the server, beside the API', async () => {
    const app = createJarvisServer({ system: {} as JarvisSystem });
    const page = await app.fetch(new Request('http://page/'));
    expect([200, 503]).toContain(page.status);
    expectSafeHeaders(page);
  });
});
