import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  explainMissingPackage,
  optionalPackages,
  optionalPackagesCheck,
} from './optional-packages.js';
import { packageManifest } from './package-version.js';

const MANIFEST = {
  version: '1.0.0',
  peerDependencies: { pyodide: '314.0.7', '@modelcontextprotocol/sdk': '1.32.2', required: '1' },
  peerDependenciesMeta: {
    pyodide: { optional: true },
    '@modelcontextprotocol/sdk': { optional: true },
  },
};

let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'jarvis-optional-'));
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** A project with openjarvis in its node_modules and the named packages beside it. */
async function project(installed: readonly string[]): Promise<string> {
  const root = join(folder, 'app', 'node_modules', 'openjarvis');
  await mkdir(root, { recursive: true });
  for (const name of installed) {
    await mkdir(join(folder, 'app', 'node_modules', name), { recursive: true });
    await writeFile(join(folder, 'app', 'node_modules', name, 'package.json'), '{}');
  }
  return root;
}

function missing(specifier: string, code = 'ERR_MODULE_NOT_FOUND'): Error {
  return Object.assign(new Error(`Cannot find package '${specifier}' imported from /x/a.js`), {
    code,
  });
}

describe('optional packages', () => {
  it('are the optional peer dependencies of package.json, found where Node would look', async () => {
    const root = await project(['pyodide']);
    const packages = optionalPackages({ manifest: MANIFEST, root, execPath: '/usr/bin/node' });
    expect(
      packages.map(({ name, installed, installCommand }) => ({ name, installed, installCommand })),
    ).toEqual([
      { name: 'pyodide', installed: true, installCommand: 'npm install pyodide@314.0.7' },
      {
        name: '@modelcontextprotocol/sdk',
        installed: false,
        installCommand: 'npm install @modelcontextprotocol/sdk@1.32.2',
      },
    ]);
  });

  it('says -g when OpenJarvis itself is installed globally', () => {
    const [entry] = optionalPackages({
      manifest: MANIFEST,
      root: '/opt/node/lib/node_modules/openjarvis',
      execPath: '/opt/node/bin/node',
    });
    expect(entry?.installCommand).toBe('npm install -g pyodide@314.0.7');
  });

  it('this package declares pyodide and node-llama-cpp optional', () => {
    const names = optionalPackages().map((entry) => entry.name);
    expect(names).toEqual(expect.arrayContaining(['node-llama-cpp', 'pyodide']));
    expect(packageManifest().peerDependencies?.pyodide).toMatch(/^\d/);
  });

  it('names the feature of each optional package this package declares', () => {
    // `jarvis doctor` shows the use beside each package; a vague fallback there tells a user nothing.
    for (const entry of optionalPackages())
      expect(entry.use, entry.name).not.toBe('an optional feature');
  });

  it('a missing optional package becomes an error with the feature and the npm command', async () => {
    const root = await project([]);
    const options = { manifest: MANIFEST, root, execPath: '/usr/bin/node' };
    const explained = explainMissingPackage(
      missing('@modelcontextprotocol/sdk/server/index.js'),
      options,
    );
    expect(explained).toMatchObject({ code: 'package_missing' });
    expect((explained as Error).message).toBe(
      'MCP (servers listed in config, `jarvis mcp serve`) needs the optional package ' +
        '@modelcontextprotocol/sdk, which is not installed. Install it with: ' +
        'npm install @modelcontextprotocol/sdk@1.32.2',
    );
    const cjs = explainMissingPackage(missing('pyodide/package.json', 'MODULE_NOT_FOUND'), options);
    expect((cjs as Error).message).toContain('npm install pyodide@314.0.7');
  });

  it('leaves every other error as it is', async () => {
    const options = { manifest: MANIFEST, root: await project([]) };
    for (const error of [
      missing('required'),
      missing('./relative.js'),
      new Error("Cannot find package 'pyodide'"),
      'text',
    ])
      expect(explainMissingPackage(error, options)).toBe(error);
  });

  it('the doctor check lists each package and how to add the missing ones, never failing', async () => {
    const root = await project(['pyodide']);
    const check = optionalPackagesCheck(optionalPackages({ manifest: MANIFEST, root }));
    expect(check).toMatchObject({ name: 'packages', status: 'ok', required: false });
    expect(check.summary).toBe(
      'not installed: @modelcontextprotocol/sdk (each needed only for one feature)',
    );
    expect(check.details[1]).toContain('npm install @modelcontextprotocol/sdk@1.32.2');
    const all = optionalPackagesCheck(
      optionalPackages({
        manifest: MANIFEST,
        root: await project(['pyodide', '@modelcontextprotocol/sdk']),
      }),
    );
    expect(all.summary).toBe('all installed (pyodide, @modelcontextprotocol/sdk)');
  });
});
