import { describe, expect, it } from 'vitest';
import { JarvisError } from '../../core/index.js';
import { configFromToml } from './from-toml.js';
import type { ConfigContext } from './load.js';
import { ConfigError } from './problems.js';
import { configSecrets, secretsInText } from './secrets.js';

const CONTEXT: ConfigContext = { home: '/h/.openjarvis', cwd: '/w', homeDir: '/h' };
const FILE = '/h/.openjarvis/config.toml';
const URL_WITH_PASSWORD = 'postgres://jarvis:Tr0ub4dor-3@db.example:5432/openjarvis';

function load(text: string, env: Record<string, string> = {}) {
  return configFromToml(text, FILE, { ...CONTEXT, env });
}

function configError(action: () => unknown): ConfigError {
  try {
    action();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('[storage]', () => {
  it('defaults to SQLite with a pool of 10 and a 10 s connect timeout', () => {
    expect(load('').config.storage).toEqual({
      backend: 'sqlite',
      url: undefined,
      poolSize: 10,
      connectTimeoutMs: 10_000,
      statementTimeoutMs: 30_000,
    });
  });

  it('reads backend, url, pool_size, connect_timeout_ms and statement_timeout_ms', () => {
    const { config, warnings } = load(
      `[storage]\nbackend = "postgres"\nurl = " ${URL_WITH_PASSWORD} "\npool_size = 4\nconnect_timeout_ms = 2500\nstatement_timeout_ms = 5000\n`,
    );
    expect(config.storage).toEqual({
      backend: 'postgres',
      url: URL_WITH_PASSWORD,
      poolSize: 4,
      connectTimeoutMs: 2500,
      statementTimeoutMs: 5000,
    });
    expect(warnings).toEqual([]);
  });

  it('lets OPENJARVIS_DATABASE_URL win over the file url, keeping the backend the file chose', () => {
    const env = { OPENJARVIS_DATABASE_URL: 'postgresql://other@10.0.0.5/jarvis' };
    const fromEnv = load(`[storage]\nbackend = "postgres"\nurl = "${URL_WITH_PASSWORD}"\n`, env);
    expect(fromEnv.config.storage).toMatchObject({
      backend: 'postgres',
      url: 'postgresql://other@10.0.0.5/jarvis',
    });
    expect(load('', env).config.storage.backend).toBe('sqlite');
    expect(load('', { OPENJARVIS_DATABASE_URL: '  ' }).config.storage.url).toBeUndefined();
  });

  it('names the key and the accepted values of a wrong backend, pool size or timeout', () => {
    const error = configError(() =>
      load(
        '[storage]\nbackend = "mysql"\npool_size = 0\nconnect_timeout_ms = -1\nstatement_timeout_ms = 1.5\n',
      ),
    );
    expect(error.problems.map((problem) => [problem.key, problem.line])).toEqual([
      ['storage.backend', 2],
      ['storage.pool_size', 3],
      ['storage.connect_timeout_ms', 4],
      ['storage.statement_timeout_ms', 5],
    ]);
    expect(error.message).toContain('expected one of "sqlite", "postgres", got "mysql"');
    expect(error.message).toContain('expected a whole number from 1 to 1000, got 0');
  });

  it('refuses a url that is not PostgreSQL without ever showing its password', () => {
    const fileError = configError(() =>
      load('[storage]\nurl = "mysql://root:Sup3r-Secret@db/x"\n'),
    );
    expect(fileError.problems[0]?.key).toBe('storage.url');
    expect(fileError.message).toMatch(/expected a PostgreSQL URL such as "postgres:\/\/user/);
    expect(fileError.message).not.toContain('Sup3r-Secret');
    const envError = configError(() =>
      load('', { OPENJARVIS_DATABASE_URL: 'http://u:Env-Secret-9@h/db' }),
    );
    expect(envError.problems.map((problem) => problem.key)).toEqual(['OPENJARVIS_DATABASE_URL']);
    expect(envError.message).not.toContain('Env-Secret-9');
  });

  it('counts the url password as a secret: in the loaded config, the environment and raw text', () => {
    const { config } = load(`[storage]\nurl = "${URL_WITH_PASSWORD}"\n`);
    expect(configSecrets(config)).toContain('Tr0ub4dor-3');
    const fromEnv = load('', { OPENJARVIS_DATABASE_URL: URL_WITH_PASSWORD });
    expect(configSecrets(fromEnv.config, { OPENJARVIS_DATABASE_URL: URL_WITH_PASSWORD })).toContain(
      'Tr0ub4dor-3',
    );
    expect(secretsInText(`[storage]\nurl = "${URL_WITH_PASSWORD}"\n`)).toContain('Tr0ub4dor-3');
    expect(secretsInText('url = "postgres://u:p%40ss-word@h/db"')).toContain('p@ss-word');
  });

  it('redacts the url password from a TOML syntax error excerpt', () => {
    let message = '';
    try {
      load(`[storage]\nurl = "${URL_WITH_PASSWORD}"\npool_size = = 3\n`);
    } catch (error) {
      message = JarvisError.isInstance(error) ? error.message : '';
    }
    expect(message).toMatch(/config\.toml:3:/);
    expect(message).not.toContain('Tr0ub4dor-3');
  });
});
