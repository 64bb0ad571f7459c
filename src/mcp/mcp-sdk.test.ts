import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { JarvisError } from '../core/index.js';
import {
  importMcpSdk,
  loadMcpClientSdk,
  MCP_SDK_INSTALL_COMMAND,
  MCP_SDK_PACKAGE,
  MCP_SDK_VERSION,
} from './mcp-sdk.js';

// The MCP SDK is optional: nothing loads it at import time, and using MCP without it says how to install it.

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const INSTALL = 'install it with `npm install @modelcontextprotocol/sdk@1.32.2`';

function notFound(specifier: string): Error {
  const message = `Cannot find package '${specifier}' imported from /app/dist/mcp/mcp-sdk.js`;
  return Object.assign(new Error(message), { code: 'ERR_MODULE_NOT_FOUND' });
}

describe('the MCP SDK loader', () => {
  it('asks for the SDK version package.json names', async () => {
    const manifest = JSON.parse(await readFile(`${REPO}package.json`, 'utf8')) as {
      dependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
    };
    const wanted =
      manifest.peerDependencies?.[MCP_SDK_PACKAGE] ?? manifest.dependencies?.[MCP_SDK_PACKAGE];
    expect(wanted).toBe(MCP_SDK_VERSION);
    expect(MCP_SDK_INSTALL_COMMAND).toBe(`npm install ${MCP_SDK_PACKAGE}@${wanted}`);
  });

  it('turns a missing SDK into mcp_sdk_missing naming the install command', async () => {
    const cause = notFound('@modelcontextprotocol/sdk/client/index.js');
    const error = await importMcpSdk(() => Promise.reject(cause)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JarvisError);
    expect(error).toMatchObject({ code: 'mcp_sdk_missing', cause });
    expect((error as Error).message).toContain(INSTALL);
  });

  it('passes other failures through as they are', async () => {
    for (const cause of [notFound('zod'), new Error('boom'), 'text']) {
      await expect(importMcpSdk(() => Promise.reject(cause))).rejects.toBe(cause);
    }
  });

  it('loads the client side when the SDK is installed', async () => {
    const sdk = await loadMcpClientSdk();
    expect(typeof sdk.Client).toBe('function');
    expect(sdk.ErrorCode.RequestTimeout).toBe(-32001);
  });
});

describe('without the MCP SDK installed', () => {
  it('every src/mcp module and the package root import; MCP calls fail with the install command', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'src/mcp/no-sdk-probe.fixture.ts'],
      { cwd: REPO, timeout: 30_000 },
    );
    const probe = JSON.parse(stdout) as Record<string, unknown>;
    // The probe really hides the SDK: importing it directly fails as when it is not installed.
    expect(probe.direct).toMatchObject({ code: 'ERR_MODULE_NOT_FOUND' });
    expect(probe.modules).toEqual(
      expect.arrayContaining(['index.ts', 'mcp-connection.ts', 'mcp-server.ts']),
    );
    expect(probe.rootExports).toBeGreaterThan(0);
    const missing = { code: 'mcp_sdk_missing', message: expect.stringContaining(INSTALL) };
    expect(probe.stdio).toEqual(missing);
    expect(probe.http).toEqual(missing);
    expect(probe.call).toEqual(missing);
    expect(probe.warnings).toEqual([{ server: 'web', message: expect.stringContaining(INSTALL) }]);
  }, 40_000);
});
