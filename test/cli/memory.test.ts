import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CliRun, runCli } from '../support/run-cli.js';

const homes: string[] = [];

afterAll(async () => {
  await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
});

/** Runs the built `jarvis` with a fresh temp HOME (OPENJARVIS_HOME inside it). */
function jarvis(home: string, args: readonly string[]): Promise<CliRun> {
  return runCli(args, {
    cwd: home,
    env: { HOME: home, OPENJARVIS_HOME: join(home, '.openjarvis') },
  });
}

describe('jarvis memory index and search in a real process', () => {
  it('indexes a folder holding a 1 MB single-line file, then shows readable relevance', async () => {
    const home = await mkdtemp(join(tmpdir(), 'jarvis-memory-'));
    homes.push(home);
    const docs = join(home, 'docs');
    await mkdir(docs);
    // One line of about 1 MB: the old recursive chunker overflowed the main thread's stack on it.
    await writeFile(join(docs, 'a-long-line.txt'), 'tomato pepper '.repeat(75_000));
    await writeFile(join(docs, 'b-garden.md'), '# Garden\n\nTomatoes need sun and water.\n');
    await writeFile(join(docs, 'c-kitchen.txt'), 'Cook the tomatoes slowly with garlic.\n');

    const indexed = await jarvis(home, ['memory', 'index', docs]);
    expect(indexed.stderr).toBe('');
    expect(indexed.code).toBe(0);
    expect(indexed.stdout).toMatch(
      /^Indexed 3 files: \d{4} chunks written, 0 unchanged, 0 skipped\.\n$/,
    );

    const search = await jarvis(home, ['memory', 'search', 'garlic', 'sun', '--top-k', '2']);
    expect(search.code).toBe(0);
    const lines = search.stdout.split('\n').filter((line) => /^\d\./.test(line));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^1\. 100% {2}\//);
    expect(lines[1]).toMatch(/^2\. {1,2}(?:\d{1,3}%|<1%) {2}\//);
    expect(search.stdout).not.toMatch(/0\.0000/);

    const json = await jarvis(home, ['memory', 'search', 'garlic', '--json']);
    const [best] = JSON.parse(json.stdout) as { score: number; relevance: number }[];
    expect(best?.relevance).toBe(1);
    expect(best?.score).toBeGreaterThan(0);
    expect(best?.score).not.toBe(1);
  });
});
