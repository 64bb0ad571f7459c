import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from '../../core/index.js';
import { configFromToml } from './from-toml.js';
import { configSecrets, looksSecretName, secretsInText } from './secrets.js';

const CONTEXT = { home: '/h/.openjarvis', cwd: '/w', homeDir: '/h' };

describe('looksSecretName', () => {
  it('knows secret names in every spelling', () => {
    for (const name of [
      'OPENAI_API_KEY',
      'HF_TOKEN',
      'AWS_SECRET_ACCESS_KEY',
      'DB_PASSWORD',
      'apiKey',
      'api_key',
      'X-Api-Key',
      'Authorization',
      'GITHUB_PAT',
    ]) {
      expect(looksSecretName(name), name).toBe(true);
    }
  });

  it('leaves names that only describe a secret, and ordinary names', () => {
    for (const name of [
      'SSH_KEY_PATH',
      'SSH_AUTH_SOCK',
      'AUTH_TYPE',
      'TOKEN_URL',
      'max_tokens',
      'PATH',
      'PWD',
      'HOME',
      'keyboard',
    ]) {
      expect(looksSecretName(name), name).toBe(false);
    }
  });
});

describe('configSecrets', () => {
  it('returns every secret of the config and the environment', () => {
    const { config } = configFromToml(
      `[engine.openai]
api_key = "file-engine-key-1"
host = "https://bob:url-password-2@llm.example/v1?token=url-token-3&model=big"

[[mcp.servers]]
name = "remote"
url = "https://mcp.example/mcp"
headers = { Authorization = "Bearer header-token-4", Accept = "application/json" }

[[mcp.servers]]
name = "local"
command = "server"
args = ["--api-key", "arg-key-5", "--token=arg-token-6", "--verbose", "plain-arg"]
env = { SERVICE_TOKEN = "env-token-7", LOG_LEVEL = "debug-level" }
`,
      '/w/config.toml',
      CONTEXT,
    );
    const secrets = configSecrets(config, {
      OPENAI_API_KEY: 'env-openai-8',
      TAVILY_API_KEY: 'env-tavily-9',
      BRAVE_API_KEY: 'env-brave-10',
      HF_TOKEN: 'env-hf-11',
      MY_SERVICE_SECRET: 'env-named-12',
      SEARXNG_URL: 'http://u:searx-pass-13@127.0.0.1:8888',
      PATH: '/usr/bin:/bin',
      HOME: '/home/tester',
      SSH_KEY_PATH: '/home/tester/.ssh/id',
    });
    expect([...secrets].sort()).toEqual(
      [
        'file-engine-key-1',
        'url-password-2',
        'url-token-3',
        'Bearer header-token-4',
        'header-token-4',
        'arg-key-5',
        'arg-token-6',
        'env-token-7',
        'env-openai-8',
        'env-tavily-9',
        'env-brave-10',
        'env-hf-11',
        'env-named-12',
        'searx-pass-13',
      ].sort(),
    );
  });

  it('lets one redactor remove them all from a message', () => {
    const { config } = configFromToml('[engine.openai]\napi_key = "office-key-123"\n', '/c', {
      ...CONTEXT,
      env: {},
    });
    const redact = createRedactor(configSecrets(config, { HF_TOKEN: 'hub-token-456' }));
    expect(redact('got office-key-123 and hub-token-456')).toBe(`got ${REDACTED} and ${REDACTED}`);
  });
});

describe('secretsInText', () => {
  it('finds secret-named values in text that does not parse, closed or not', () => {
    expect(
      secretsInText(
        '[engine.openai]\napi_key = "unterminated-key-1\nmodel = "m"\npassword = bare-pass-2 oops\n',
      ),
    ).toEqual(['unterminated-key-1', 'bare-pass-2']);
  });

  it('reads an environment dump (NUL-separated KEY=VALUE)', () => {
    expect(
      secretsInText('PATH=/usr/bin\0DEPLOY_TOKEN=dump-token-1\0HOME=/root\0DB_PASSWORD=pw-2\0'),
    ).toEqual(['dump-token-1', 'pw-2']);
  });

  it('takes the lines of a private key block', () => {
    const text = 'key = """\n-----BEGIN PRIVATE KEY-----\nMIIEvgIBADANBgkq\nhkiG9w0BAQEF\n';
    expect(secretsInText(text)).toEqual(
      expect.arrayContaining(['MIIEvgIBADANBgkq', 'hkiG9w0BAQEF']),
    );
  });
});
