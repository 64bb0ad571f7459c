import type * as Library from '../src/index.js';

// Benchmarks measure the compiled library (what users run), not the TypeScript sources through a loader that
// adds helpers of its own; `npm run bench` builds first. The types still come from src/.
const distEntry = new URL('../dist/index.js', import.meta.url).href;

/** The built package entry, typed as the source entry. */
export const library = (await import(distEntry)) as typeof Library;
