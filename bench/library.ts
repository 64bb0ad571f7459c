import type * as Library from '../src/index.js';
import type * as Testing from '../src/testing/index.js';

// Benchmarks measure the compiled library (what users run), not the TypeScript sources through a loader that
// adds helpers of its own; `npm run bench` builds first. The types still come from src/.
const distUrl = (path: string) => new URL(`../dist/${path}`, import.meta.url).href;

/** The built package entry, typed as the source entry. */
export const library = (await import(distUrl('index.js'))) as typeof Library;

/** The built `openjarvis/testing` entry. */
export const testing = (await import(distUrl('testing/index.js'))) as typeof Testing;
