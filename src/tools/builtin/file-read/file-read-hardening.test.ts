import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolResult } from '../../../core/index.js';
import { ToolExecutor } from '../../executor.js';
import { FILE_READ_MAX_BYTES, FileReadTool } from './file-read.js';
import { inspectFile, readVerifiedFile } from './file-read-open.js';
import { resolveTarget } from './file-read-paths.js';
import { isOnPseudoFileSystem } from './file-read-pseudo.js';

const CANARY = 'CANARY-51c9';

let root: string;
let allowed: string;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'file-read-hard-')));
  allowed = join(root, 'allowed');
  await mkdir(allowed);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function tool(options: { allowSecrets?: boolean } = {}): FileReadTool {
  return new FileReadTool({ allowedDirs: [allowed], baseDir: allowed, ...options });
}

function expectRefused(result: ToolResult, content: string | RegExp): void {
  expect(result.success).toBe(false);
  expect(result.content).not.toContain(CANARY);
  if (typeof content === 'string') expect(result.content).toBe(content);
  else expect(result.content).toMatch(content);
}

function pseudoMessage(path: string, root: string): string {
  return `Access denied: ${path} is a system pseudo-file (under ${root}); file_read never reads /proc, /sys or /dev.`;
}

describe('FileReadTool: no allowed directory', () => {
  it('reads nothing and says how to configure allowed_dirs', async () => {
    const reader = new FileReadTool({ allowedDirs: [], baseDir: '/' });
    expect(reader.allowedDirs).toEqual([]);
    for (const path of ['/etc/hostname', 'etc/hostname', '/proc/self/environ']) {
      const result = await reader.execute({ path });
      expect(result).toMatchObject({ success: false, errorCode: 'tool_error' });
      expect(result.content).toMatch(/^file_read has no allowed directory, so it reads nothing/);
      expect(result.content).toContain('allowed_dirs');
      expect(result.content).toContain('[tools.file_read]');
      expect(result.content).toContain("never when it is '/'");
    }
  });
});

describe('FileReadTool: /proc, /sys and /dev', () => {
  it('never reads them, even when / or they themselves are allowed', async () => {
    const everything = new FileReadTool({ allowedDirs: ['/', '/proc', '/sys'] });
    expect((await everything.execute({ path: '/etc/hostname' })).success).toBe(true);
    const cases = [
      ['/proc/self/environ', '/proc'],
      ['/proc/1/cmdline', '/proc'],
      ['/sys/kernel/uevent_seqnum', '/sys'],
      ['/dev/null', '/dev'],
    ] as const;
    for (const [path, where] of cases) {
      const result = await everything.execute({ path });
      expectRefused(result, pseudoMessage(path, where));
      expect(result.content).not.toContain('PATH=');
    }
  });

  it('refuses a link from an allowed directory into /proc', async () => {
    await symlink('/proc/self/environ', join(allowed, 'env-link'));
    await symlink('/proc/self', join(allowed, 'self'));
    const reader = new FileReadTool({ allowedDirs: [allowed, '/proc'], baseDir: allowed });
    expectRefused(await reader.execute({ path: 'env-link' }), pseudoMessage('env-link', '/proc'));
    expectRefused(
      await reader.execute({ path: 'self/status' }),
      pseudoMessage('self/status', '/proc'),
    );
  });

  it('checks the opened descriptor too, by path and by file system', async () => {
    const realPath = await realpath('/proc/self/status');
    const inspected = await inspectFile(realPath);
    if ('ok' in inspected) throw new Error('inspect failed');
    const read = await readVerifiedFile({
      realPath,
      expected: inspected,
      allowedDirs: ['/'],
      maxBytes: FILE_READ_MAX_BYTES,
    });
    expect(read).toEqual({ ok: false, reason: 'pseudo', where: 'under /proc' });
    expect(await isOnPseudoFileSystem('/proc/self/status')).toBe(true);
    expect(await isOnPseudoFileSystem('/sys/kernel')).toBe(true);
    expect(await isOnPseudoFileSystem(allowed)).toBe(false);
  });
});

describe('FileReadTool: more secret files', () => {
  const secretFiles = [
    '.kube/config',
    '.KUBE/config',
    '.docker/config.json',
    '.aws/credentials',
    '.env-prod',
    '.env_backup',
    'secrets.yaml',
    'Secrets.JSON',
    'id_ecdsa_sk',
    'id_rsa_github',
    'id_ed25519_work.pub',
    'server.pem',
    'putty.ppk',
    '.netrc',
  ];

  it('refuses them by name in any letter case', async () => {
    for (const name of secretFiles) {
      const path = join(allowed, name);
      await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, `${CANARY}\n`);
      expectRefused(await tool().execute({ path: name }), /^Access denied: .* is a sensitive file/);
    }
  });

  it('refuses /etc/shadow even when / is allowed', async () => {
    const everything = new FileReadTool({ allowedDirs: ['/'] });
    expectRefused(
      await everything.execute({ path: '/etc/shadow' }),
      /^Access denied: \/etc\/shadow is a sensitive file/,
    );
  });

  it('recognises private keys after a Bag Attributes preamble or a certificate', async () => {
    const key = `-----BEGIN PRIVATE KEY-----\nMIIEv${CANARY}\n-----END PRIVATE KEY-----\n`;
    const bagged = `Bag Attributes\n    localKeyID: 01 02 03\n    friendlyName: web\nKey Attributes: <No Attributes>\n${key}`;
    const bundle = `-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n${key}`;
    const encrypted = `\n-----BEGIN ENCRYPTED PRIVATE KEY-----\n${CANARY}\n`;
    const pgp = `-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n${CANARY}\n`;
    const putty = `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\n${CANARY}\n`;
    const contents = { bagged, bundle, encrypted, pgp, putty };
    for (const [name, content] of Object.entries(contents)) {
      await writeFile(join(allowed, `${name}.txt`), content);
      expectRefused(
        await tool().execute({ path: `${name}.txt` }),
        `Access denied: ${name}.txt is a sensitive file (it holds a private key).`,
      );
    }
    expect((await tool({ allowSecrets: true }).execute({ path: 'bagged.txt' })).content).toBe(
      bagged,
    );
  });

  it('reads them when allowSecrets is set, and still reads look-alikes without it', async () => {
    await mkdir(join(allowed, '.kube'));
    await writeFile(join(allowed, '.kube', 'config'), 'apiVersion: v1\n');
    expect(await tool({ allowSecrets: true }).execute({ path: '.kube/config' })).toMatchObject({
      success: true,
      content: 'apiVersion: v1\n',
    });
    const lookAlikes = ['id_map.ts', 'identity.md', 'secret.txt', 'docker-config.json', 'env.md'];
    for (const name of lookAlikes) {
      await writeFile(join(allowed, name), 'ok');
      expect((await tool().execute({ path: name })).success, name).toBe(true);
    }
    await writeFile(join(allowed, 'howto.md'), 'Keys start with "-----BEGIN PUBLIC KEY-----".\n');
    expect((await tool().execute({ path: 'howto.md' })).success).toBe(true);
  });
});

describe('FileReadTool: hostile path sizes and abandoned calls', () => {
  it('refuses a 200 KB path of 100,000 components at once', async () => {
    const result = await tool().execute({ path: `${'a/'.repeat(100_000)}x` });
    expect(result).toMatchObject({
      success: false,
      errorCode: 'invalid_arguments',
      content: 'path is too long: 200001 bytes (at most 4096).',
    });
  });

  it('refuses more than 256 components and more than 4096 bytes, and accepts the limits', async () => {
    const deep = await tool().execute({ path: `${'a/'.repeat(300)}x` });
    expect(deep).toMatchObject({
      errorCode: 'invalid_arguments',
      content: 'path has too many components: 301 (at most 256).',
    });
    const longName = await tool().execute({ path: 'é'.repeat(2049) });
    expect(longName.content).toBe('path is too long: 4098 bytes (at most 4096).');
    const atLimit = `${'a/'.repeat(255)}x`;
    expect((await tool().execute({ path: atLimit })).content).toBe(`File not found: ${atLimit}`);
  });

  it('refuses them through the executor as invalid arguments the model can repair', async () => {
    const executor = new ToolExecutor([tool()]);
    const result = await executor.execute({
      name: 'file_read',
      arguments: { path: '/'.repeat(5000) },
    });
    expect(result).toMatchObject({ success: false, errorCode: 'invalid_arguments' });
    expect(result.content).toContain('path is too long');
  });

  it('stops and answers cancelled when the call is abandoned mid-walk', async () => {
    const controller = new AbortController();
    const pending = tool().execute({ path: `${'m/'.repeat(200)}x` }, { signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({
      success: false,
      errorCode: 'cancelled',
      content: 'file_read was cancelled.',
    });
  });

  it('stops walking up a missing path as soon as the signal is aborted', async () => {
    await mkdir(join(allowed, 'real'));
    await symlink(join(allowed, 'real'), join(allowed, 'alias'));
    const missing = join(allowed, 'alias', ...Array.from({ length: 100 }, (_, i) => `m${i}`));
    const resolved = await resolveTarget(missing);
    expect(resolved.realPath.startsWith(join(allowed, 'real'))).toBe(true);
    let checks = 0;
    const signal = {
      get aborted() {
        checks += 1;
        return checks > 3;
      },
    } as AbortSignal;
    const abandoned = await resolveTarget(missing, signal);
    expect(abandoned.realPath).toBe(missing);
    expect(checks).toBe(4);
  });
});
