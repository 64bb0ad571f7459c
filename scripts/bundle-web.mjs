// Bundles the web page of `jarvis serve` (src/web/main.tsx, Preact) into <dist>/web/: app-<hash>.js and
// app-<hash>.css (minified, named by content so the server lets browsers cache them for good) and index.html
// loading them from /assets/ (no inline script: the server's Content-Security-Policy forbids it). Prints the sizes.
// Usage: node scripts/bundle-web.mjs [distFolder]   (default: dist)
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
/** A small icon, so browsers asking for one get it (and log no failed request). */
const ICON_NAME = 'icon.svg';
const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#2f6fd6"/><path d="M5 4h6v2H9v4a3 3 0 0 1-6 0h2a1 1 0 0 0 2 0V6H5z" fill="#fff"/></svg>\n';

/** The page: the bundle's script and style, a root element, and a note for browsers without script. */
function indexHtml(script, style) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>OpenJarvis</title>
<link rel="icon" href="/assets/${ICON_NAME}">
${style === undefined ? '' : `<link rel="stylesheet" href="/assets/${style}">\n`}<script type="module" src="/assets/${script}"></script>
</head>
<body>
<div id="app"><noscript>This page needs JavaScript.</noscript></div>
</body>
</html>
`;
}

/** Bundles the page into `<dist>/web` and returns the written files with their raw and gzip sizes. */
export async function bundleWeb(dist) {
  const outdir = join(dist, 'web');
  await rm(outdir, { recursive: true, force: true });
  await mkdir(outdir, { recursive: true });
  const result = await build({
    entryPoints: { app: join(ROOT, 'src', 'web', 'main.tsx') },
    outdir,
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: join(ROOT, 'tsconfig.web.json'),
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
  const script = outputs.find((name) => name.endsWith('.js'));
  const style = outputs.find((name) => name.endsWith('.css'));
  if (script === undefined) throw new Error('bundle-web: esbuild wrote no script');
  await writeFile(join(outdir, 'index.html'), indexHtml(script, style));
  await writeFile(join(outdir, ICON_NAME), ICON);
  const sizes = [];
  for (const name of [script, style, 'index.html'].filter((n) => n !== undefined)) {
    const bytes = await readFile(join(outdir, name));
    sizes.push({ name, bytes: bytes.length, gzipBytes: gzipSync(bytes).length });
  }
  return sizes;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const sizes = await bundleWeb(resolve(process.argv[2] ?? 'dist'));
  const text = sizes.map((s) => `${s.name} ${s.bytes} B (gzip ${s.gzipBytes} B)`).join(', ');
  process.stdout.write(`web page: ${text}\n`);
}
