import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolResult } from '../../../core/index.js';
import { ToolExecutor } from '../../executor.js';
import { FILE_READ_MAX_BYTES, FileReadTool } from './file-read.js';
import { inspectFile, readVerifiedFile } from './file-read-open.js';

const CANARY = 'CANARY-7f3a';

let root: string;
let allowed: string;
let outside: string;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'file-read-')));
  allowed = join(root, 'allowed');
  outside = join(root, 'outside');
  await mkdir(allowed);
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), `${CANARY}\n`);
  await writeFile(join(allowed, 'notes.txt'), 'line 1\nline 2\nline 3\n');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function tool(options: { allowSecrets?: boolean; homeDir?: string } = {}): FileReadTool {
  return new FileReadTool({ allowedDirs: [allowed], baseDir: allowed, ...options });
}

function expectFailure(result: ToolResult, content: string | RegExp): void {
  expect(result.success).toBe(false);
  expect(result.content).not.toContain(CANARY);
  if (typeof content === 'string') expect(result.content).toBe(content);
  else expect(result.content).toMatch(content);
}

function outsideMessage(path: string): string {
  return `Access denied: ${path} is outside the allowed directories (${allowed}).`;
}

describe('FileReadTool: reading', () => {
  it('reads a text file and reports its real path and size', async () => {
    const result = await tool().execute({ path: join(allowed, 'notes.txt') });
    expect(result).toMatchObject({
      success: true,
      toolName: 'file_read',
      content: 'line 1\nline 2\nline 3\n',
      metadata: { path: join(allowed, 'notes.txt'), size_bytes: 21 },
    });
  });

  it('has the documented spec', () => {
    const reader = tool();
    expect(reader.spec).toMatchObject({ name: 'file_read', category: 'filesystem' });
    expect(reader.spec.parameters).toMatchObject({ required: ['path'] });
  });

  it('resolves relative paths against baseDir and expands ~', async () => {
    expect((await tool().execute({ path: 'notes.txt' })).success).toBe(true);
    const home = await tool({ homeDir: allowed }).execute({ path: '~/notes.txt' });
    expect(home).toMatchObject({ success: true, metadata: { path: join(allowed, 'notes.txt') } });
  });

  it('follows symbolic links that stay inside and reports the real target', async () => {
    await symlink(join(allowed, 'notes.txt'), join(allowed, 'link.txt'));
    const result = await tool().execute({ path: join(allowed, 'link.txt') });
    expect(result).toMatchObject({ success: true, metadata: { path: join(allowed, 'notes.txt') } });
  });

  it('accepts an allowed directory given through a symbolic link', async () => {
    await symlink(allowed, join(root, 'alias'));
    const reader = new FileReadTool({ allowedDirs: [join(root, 'alias')] });
    expect(reader.allowedDirs).toEqual([allowed]);
    const result = await reader.execute({ path: join(root, 'alias', 'notes.txt') });
    expect(result.success).toBe(true);
  });

  it('reads multi-byte UTF-8 and strips nothing', async () => {
    await writeFile(join(allowed, 'utf8.txt'), 'café ✓ 𝄞\n');
    const result = await tool().execute({ path: 'utf8.txt' });
    expect(result).toMatchObject({ success: true, content: 'café ✓ 𝄞\n' });
  });
});

describe('FileReadTool: containment', () => {
  it('refuses every escape with the same message, never reading the canary', async () => {
    await mkdir(join(root, 'allowed_evil'));
    await writeFile(join(root, 'allowed_evil', 'x.txt'), CANARY);
    await mkdir(join(allowed, 'sub'));
    await symlink(join(outside, 'secret.txt'), join(allowed, 'file-link'));
    await symlink(outside, join(allowed, 'dir-link'));
    const attempts = [
      '../outside/secret.txt',
      join(outside, 'secret.txt'),
      join(allowed, 'sub', '..', '..', 'outside', 'secret.txt'),
      'sub/../../outside/secret.txt',
      join(root, 'allowed_evil', 'x.txt'),
      '../allowed_evil/x.txt',
      'file-link',
      'dir-link/secret.txt',
      'dir-link/../../outside/secret.txt',
      '/etc/passwd',
      '../../../../../../../../etc/passwd',
      '/',
      root,
    ];
    for (const path of attempts) {
      expectFailure(await tool().execute({ path }), outsideMessage(path));
    }
  });

  it('says the same for outside paths whether or not they exist', async () => {
    const existing = await tool().execute({ path: join(outside, 'secret.txt') });
    const missing = await tool().execute({ path: join(outside, 'nope.txt') });
    const missingDir = await tool().execute({ path: join(outside, 'no', 'such', 'file') });
    expectFailure(existing, outsideMessage(join(outside, 'secret.txt')));
    expectFailure(missing, outsideMessage(join(outside, 'nope.txt')));
    expectFailure(missingDir, outsideMessage(join(outside, 'no', 'such', 'file')));
  });

  it('treats a dangling link by where it points', async () => {
    await symlink(join(outside, 'missing.txt'), join(allowed, 'dangling-out'));
    await symlink(join(allowed, 'missing.txt'), join(allowed, 'dangling-in'));
    expectFailure(await tool().execute({ path: 'dangling-out' }), outsideMessage('dangling-out'));
    expectFailure(await tool().execute({ path: 'dangling-in' }), 'File not found: dangling-in');
  });

  it('reports missing files inside the allowed directories', async () => {
    expectFailure(await tool().execute({ path: 'nope.txt' }), 'File not found: nope.txt');
    expectFailure(await tool().execute({ path: 'a/b/c.txt' }), 'File not found: a/b/c.txt');
    expectFailure(
      await tool().execute({ path: 'notes.txt/child' }),
      'File not found: notes.txt/child',
    );
  });

  it('refuses ~ paths that leave the allowed directories', async () => {
    const reader = tool({ homeDir: outside });
    expectFailure(await reader.execute({ path: '~/secret.txt' }), outsideMessage('~/secret.txt'));
  });

  it('needs a list of existing directories', () => {
    expect(() => new FileReadTool({} as never)).toThrow(/needs allowedDirs/);
    expect(() => new FileReadTool({ allowedDirs: [join(root, 'missing')] })).toThrow(
      /cannot be used/,
    );
    expect(() => new FileReadTool({ allowedDirs: [join(allowed, 'notes.txt')] })).toThrow(
      /not a directory/,
    );
  });
});

describe('FileReadTool: file types and sizes', () => {
  it('refuses a FIFO without blocking', async () => {
    execFileSync('mkfifo', [join(allowed, 'pipe')]);
    expectFailure(
      await tool().execute({ path: 'pipe' }),
      'Not a regular file: pipe (it is a FIFO).',
    );
  });

  it('refuses devices and directories', async () => {
    const devReader = new FileReadTool({ allowedDirs: ['/dev'] });
    expectFailure(
      await devReader.execute({ path: '/dev/zero' }),
      'Access denied: /dev/zero is a system pseudo-file (under /dev); file_read never reads /proc, /sys or /dev.',
    );
    await symlink('/dev/zero', join(allowed, 'zero'));
    expectFailure(await tool().execute({ path: 'zero' }), outsideMessage('zero'));
    await mkdir(join(allowed, 'dir'));
    expectFailure(
      await tool().execute({ path: 'dir' }),
      'Not a regular file: dir (it is a directory).',
    );
  });

  it('reads exactly 1 MiB and refuses one byte more', async () => {
    await writeFile(join(allowed, 'exact.txt'), 'a'.repeat(FILE_READ_MAX_BYTES));
    await writeFile(join(allowed, 'over.txt'), 'a'.repeat(FILE_READ_MAX_BYTES + 1));
    const exact = await tool().execute({ path: 'exact.txt' });
    expect(exact.success).toBe(true);
    expect(exact.content.length).toBe(FILE_READ_MAX_BYTES);
    expect(exact.metadata).toMatchObject({ size_bytes: 1_048_576 });
    expectFailure(
      await tool().execute({ path: 'over.txt' }),
      'File too large: 1048577 bytes (max 1048576).',
    );
  });

  it('refuses invalid UTF-8 and NUL bytes as binary', async () => {
    await writeFile(join(allowed, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    await writeFile(join(allowed, 'cut.txt'), Buffer.from([0xe2, 0x9c]));
    await writeFile(join(allowed, 'nul.bin'), Buffer.from('abc\0def'));
    for (const path of ['latin1.txt', 'cut.txt']) {
      expectFailure(await tool().execute({ path }), /not valid UTF-8 text/);
    }
    expectFailure(await tool().execute({ path: 'nul.bin' }), /contains NUL bytes/);
  });
});

describe('FileReadTool: max_lines', () => {
  it('keeps the first lines and says how many were cut', async () => {
    const result = await tool().execute({ path: 'notes.txt', max_lines: 2 });
    expect(result.content).toBe(
      'line 1\nline 2\n\n[Showing the first 2 of 3 lines; call file_read with a larger max_lines to see more.]',
    );
    expect(result.metadata).toEqual({ path: join(allowed, 'notes.txt'), size_bytes: 21 });
    const all = await tool().execute({ path: 'notes.txt', max_lines: 3 });
    expect(all.content).toBe('line 1\nline 2\nline 3\n');
  });

  it('accepts "2" through the executor and refuses 0 and negatives', async () => {
    const executor = new ToolExecutor([tool()]);
    const quoted = await executor.execute({
      name: 'file_read',
      arguments: { path: 'notes.txt', max_lines: '2' },
    });
    expect(quoted.success).toBe(true);
    expect(quoted.content).toContain('first 2 of 3 lines');
    for (const max_lines of [0, -1]) {
      const refused = await executor.execute({
        name: 'file_read',
        arguments: { path: 'notes.txt', max_lines },
      });
      expect(refused).toMatchObject({ success: false, errorCode: 'invalid_arguments' });
    }
  });

  it('checks max_lines itself when called without the executor', async () => {
    expect((await tool().execute({ path: 'notes.txt', max_lines: '1' })).content).toContain(
      'first 1 of 3',
    );
    for (const max_lines of [0, -3, 2.5, 'abc', true]) {
      expect(await tool().execute({ path: 'notes.txt', max_lines })).toMatchObject({
        success: false,
        errorCode: 'invalid_arguments',
        content: expect.stringMatching(/^max_lines must be a positive whole number/),
      });
    }
  });

  it('refuses a missing, empty or non-string path', async () => {
    for (const path of [undefined, null, '']) {
      expect(await tool().execute({ path })).toMatchObject({
        success: false,
        errorCode: 'invalid_arguments',
        content: 'No path provided.',
      });
    }
    expect((await tool().execute({ path: 42 })).content).toBe('path must be a string, got number.');
    expect((await tool().execute({ path: 'a\0b' })).success).toBe(false);
  });
});

describe('FileReadTool: secrets', () => {
  const secretFiles = [
    '.env',
    '.ENV',
    '.Env.Local',
    '.env.production',
    'prod.env',
    'id_rsa',
    'ID_ED25519',
    'id_rsa.pub',
    'server.PEM',
    'tls.key',
    '.npmrc',
    '.NETRC',
    '.git-credentials',
    'credentials',
    'Credentials.json',
    '.ssh/config',
    '.SSH/known_hosts',
    '.aws/config',
    '.gnupg/pubring.kbx',
  ];

  it('refuses well-known secret files in any letter case, existing or not', async () => {
    for (const name of secretFiles) {
      const path = join(allowed, name);
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, `${CANARY}\n`);
      expectFailure(await tool().execute({ path: name }), /^Access denied: .* is a sensitive file/);
    }
    expectFailure(
      await tool().execute({ path: '.env.missing' }),
      /^Access denied: .env.missing is a sensitive file/,
    );
  });

  it('refuses links to secret files and files that hold a private key', async () => {
    await writeFile(join(allowed, '.env'), CANARY);
    await symlink(join(allowed, '.env'), join(allowed, 'innocent.txt'));
    expectFailure(await tool().execute({ path: 'innocent.txt' }), /is a sensitive file/);
    await writeFile(
      join(allowed, 'backup.txt'),
      `-----BEGIN OPENSSH PRIVATE KEY-----\n${CANARY}\n-----END OPENSSH PRIVATE KEY-----\n`,
    );
    expectFailure(
      await tool().execute({ path: 'backup.txt' }),
      'Access denied: backup.txt is a sensitive file (it holds a private key).',
    );
  });

  it('reads them when allowSecrets is set', async () => {
    await writeFile(join(allowed, '.ENV'), 'TOKEN=1\n');
    await writeFile(join(allowed, 'k.txt'), '-----BEGIN RSA PRIVATE KEY-----\nx\n');
    const reader = tool({ allowSecrets: true });
    expect(await reader.execute({ path: '.ENV' })).toMatchObject({
      success: true,
      content: 'TOKEN=1\n',
    });
    expect((await reader.execute({ path: 'k.txt' })).success).toBe(true);
    expectFailure(await reader.execute({ path: '../outside/secret.txt' }), /outside the allowed/);
  });

  it('does not refuse ordinary names that merely resemble secrets', async () => {
    for (const name of ['environment.md', 'keys.txt', 'monkey.ts', 'env.ts', 'ssh.md']) {
      await writeFile(join(allowed, name), 'ok');
      expect((await tool().execute({ path: name })).success, name).toBe(true);
    }
  });
});

describe('FileReadTool: swaps between check and open', () => {
  it('refuses a directory swapped for a link to the outside after the check', async () => {
    await mkdir(join(allowed, 'sub'));
    await writeFile(join(allowed, 'sub', 'secret.txt'), 'fine');
    const realPath = join(allowed, 'sub', 'secret.txt');
    const inspected = await inspectFile(realPath);
    if ('ok' in inspected) throw new Error('inspect failed');
    await rename(join(allowed, 'sub'), join(allowed, 'old-sub'));
    await symlink(outside, join(allowed, 'sub'));
    const read = await readVerifiedFile({
      realPath,
      expected: inspected,
      allowedDirs: [allowed],
      maxBytes: FILE_READ_MAX_BYTES,
    });
    expect(read.ok).toBe(false);
    expect(JSON.stringify(read)).not.toContain(CANARY);
  });

  it('refuses a file swapped for another file, a link or a FIFO after the check', async () => {
    const realPath = join(allowed, 'notes.txt');
    const swaps = [
      async () =>
        writeFile(`${realPath}.new`, 'other').then(() => rename(`${realPath}.new`, realPath)),
      async () => unlink(realPath).then(() => symlink(join(outside, 'secret.txt'), realPath)),
      async () => {
        await unlink(realPath);
        execFileSync('mkfifo', [realPath]);
      },
    ];
    for (const swap of swaps) {
      await rm(realPath, { force: true });
      await writeFile(realPath, 'original');
      const inspected = await inspectFile(realPath);
      if ('ok' in inspected) throw new Error('inspect failed');
      await swap();
      const read = await readVerifiedFile({
        realPath,
        expected: inspected,
        allowedDirs: [allowed],
        maxBytes: FILE_READ_MAX_BYTES,
      });
      expect(read).toMatchObject({ ok: false });
    }
  });

  it('never returns the outside file while a link flips between inside and outside', async () => {
    const link = join(allowed, 'flip');
    await symlink(join(allowed, 'notes.txt'), link);
    let reads = 0;
    let stop = false;
    const flipper = (async () => {
      for (let i = 0; !stop; i += 1) {
        const target = i % 2 === 0 ? join(outside, 'secret.txt') : join(allowed, 'notes.txt');
        const temporary = join(allowed, `flip-${i}`);
        await symlink(target, temporary);
        await rename(temporary, link);
      }
    })();
    const reader = tool();
    const contents: string[] = [];
    for (; reads < 300; reads += 1) contents.push((await reader.execute({ path: 'flip' })).content);
    stop = true;
    await flipper;
    expect(contents.filter((content) => content.includes(CANARY))).toEqual([]);
    const allowedOutcomes = new Set([
      'line 1\nline 2\nline 3\n',
      outsideMessage('flip'),
      'File changed while it was being opened: flip; try again.',
    ]);
    expect(contents.filter((content) => !allowedOutcomes.has(content))).toEqual([]);
  });
});
