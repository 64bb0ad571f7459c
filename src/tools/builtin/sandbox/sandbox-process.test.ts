import { readdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../core/index.js';
import { runChild } from './sandbox-process.js';

const base = { stdin: '', timeoutMs: 5_000, maxStreamBytes: 1024, clock: systemClock } as const;

/** Host processes whose command line contains `marker`. */
async function processesWith(marker: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const line = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (line.includes(marker)) found.push(entry);
  }
  return found;
}

describe('runChild', () => {
  it('reports a command that cannot start', async () => {
    const run = await runChild({ ...base, command: '/nonexistent/sandbox-binary', args: [] });
    expect(run.stoppedBy).toBe('spawn_error');
    expect(run.spawnError).toMatch(/ENOENT/);
  });

  it('kills the whole process group at the timeout, background children included', async () => {
    const run = await runChild({
      ...base,
      command: '/bin/sh',
      args: ['-c', 'sleep 987661 & sleep 987662; echo never'],
      timeoutMs: 300,
    });
    expect(run.stoppedBy).toBe('timeout');
    expect(run.elapsedMs).toBeLessThan(800);
    expect(run.stdout).toBe('');
    expect(await processesWith('98766')).toEqual([]);
  });

  it('gives the child an empty environment and its stdin', async () => {
    process.env.JARVIS_RUNCHILD_CANARY = 'leaked';
    try {
      const run = await runChild({
        ...base,
        command: '/bin/sh',
        args: ['-c', 'env; cat'],
        stdin: 'from stdin',
      });
      expect(run.stdout).not.toContain('JARVIS_RUNCHILD_CANARY');
      expect(run.stdout).toContain('from stdin');
      expect(run.exitCode).toBe(0);
    } finally {
      delete process.env.JARVIS_RUNCHILD_CANARY;
    }
  });

  it('stops at the stream cap and keeps exactly the cap', async () => {
    const run = await runChild({
      ...base,
      command: '/bin/sh',
      args: ['-c', 'yes'],
      maxStreamBytes: 4096,
    });
    expect(run.stoppedBy).toBe('output_limit');
    expect(Buffer.byteLength(run.stdout)).toBe(4096);
  });
});
