import { describe, expect, it } from 'vitest';
import { configFromToml } from './from-toml.js';

const CONTEXT = { home: '/home/tester/.openjarvis', homeDir: '/home/tester' };

function load(text: string, cwd: string) {
  return configFromToml(text, '/home/tester/.openjarvis/config.toml', { ...CONTEXT, cwd });
}

describe('[tools.file_read] defaults', () => {
  it('allows the current directory by default', () => {
    expect(load('', '/work/project').config.tools.fileReadAllowedDirs).toEqual(['/work/project']);
  });

  it('never defaults to / when the runtime was started there', () => {
    expect(load('', '/').config.tools.fileReadAllowedDirs).toEqual([]);
    expect(load('[tools.file_read]\n', '/').config.tools.fileReadAllowedDirs).toEqual([]);
  });

  it('still allows / when it is configured explicitly', () => {
    const { config } = load('[tools.file_read]\nallowed_dirs = ["/"]\n', '/');
    expect(config.tools.fileReadAllowedDirs).toEqual(['/']);
    expect(load('[tools.file_read]\nallowed_dirs = ["."]\n', '/').config.tools).toMatchObject({
      fileReadAllowedDirs: ['/'],
    });
  });

  it('reads allow_secret_files (off unless set) without warning about it', () => {
    const unset = load('', '/work/project');
    expect(unset.config.tools.fileReadAllowSecretFiles).toBe(false);
    const set = load('[tools.file_read]\nallow_secret_files = true\n', '/work/project');
    expect(set.warnings).toEqual([]);
    expect(set.config.tools).toHaveProperty('fileReadAllowSecretFiles', true);
    expect(() => load('[tools.file_read]\nallow_secret_files = "yes"\n', '/work')).toThrow(
      /allow_secret_files/,
    );
  });
});
