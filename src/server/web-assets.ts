import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Context, Hono } from 'hono';

/** Options of `createWebAssets`. */
export interface WebAssetsOptions {
  /** The built page's folder (`index.html` and its assets); default: found next to this module. */
  readonly folder?: string | undefined;
}

/** The headers every answer about the page carries: no inline script, no sniffing, no framing, no referrer. */
export const WEB_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'self'; base-uri 'none'; object-src 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

/** What `/` answers while the page is not built. */
export const WEB_NOT_BUILT_TEXT = 'the web page is not built: run npm run build';

/** An asset name: one path segment, no leading dot, a known extension. */
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};
/** `app-<hash>.js`: named by its content, so it may be cached for good. */
const HASHED_NAME = /-[A-Za-z0-9]{8,}\.[a-z]+$/;

/**
 * The folders the built page may be in, nearest first: `dist/web` is beside `dist/server` (the library) and
 * `dist/bin` (the bundled CLI); from the sources (`src/server`), it is `../../dist/web`.
 */
export function webFolderCandidates(moduleUrl: string = import.meta.url): string[] {
  const here = dirname(fileURLToPath(moduleUrl));
  return [join(here, '..', 'web'), join(here, '..', '..', 'dist', 'web')];
}

/** The first candidate folder holding a built page (`index.html`), if any. */
export function findWebFolder(
  candidates: readonly string[] = webFolderCandidates(),
): string | undefined {
  return candidates.find((folder) => existsSync(join(folder, 'index.html')));
}

/**
 * `GET /` (the page) and `GET /assets/<name>` (its script and style) from the built folder, with a strict
 * Content-Security-Policy; `/` answers 503 with a plain page saying how to build it when it is not built.
 * Files are read on each request, so a rebuild shows without a restart.
 */
export function createWebAssets(options: WebAssetsOptions = {}): Hono {
  const app = new Hono();
  const folder = () => options.folder ?? findWebFolder();
  app.get('/', async (c) => {
    const root = folder();
    const page = root === undefined ? undefined : await readOrUndefined(join(root, 'index.html'));
    if (page === undefined) return notBuilt(c);
    return answer(page, 'text/html; charset=utf-8', 'no-cache');
  });
  app.get('/assets/:name', async (c) => {
    const name = c.req.param('name');
    const type = CONTENT_TYPES[extname(name)];
    const root = folder();
    if (!ASSET_NAME.test(name) || type === undefined || root === undefined) return missing(c);
    const file = await readOrUndefined(join(root, name));
    if (file === undefined) return missing(c);
    const cache = HASHED_NAME.test(name) ? 'public, max-age=31536000, immutable' : 'no-cache';
    return answer(file, type, cache);
  });
  return app;
}

async function readOrUndefined(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch {
    return undefined;
  }
}

function answer(body: Buffer, type: string, cache: string): Response {
  return new Response(new Uint8Array(body), {
    headers: { ...WEB_SECURITY_HEADERS, 'Content-Type': type, 'Cache-Control': cache },
  });
}

function notBuilt(c: Context): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>OpenJarvis</title></head><body><p>${WEB_NOT_BUILT_TEXT}</p></body></html>`;
  c.header('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(WEB_SECURITY_HEADERS)) c.header(name, value);
  return c.html(html, 503);
}

function missing(c: Context): Response {
  for (const [name, value] of Object.entries(WEB_SECURITY_HEADERS)) c.header(name, value);
  return c.text('Not found', 404);
}
