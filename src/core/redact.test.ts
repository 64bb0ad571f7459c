import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED, redactDeep, redactSecrets } from './redact.js';

describe('redactSecrets', () => {
  it('removes configured secrets by value, wherever they appear', () => {
    const redact = createRedactor(['my-local-secret-123', undefined, '']);
    expect(redact('server said: bad key my-local-secret-123 (twice: my-local-secret-123)')).toBe(
      `server said: bad key ${REDACTED} (twice: ${REDACTED})`,
    );
  });

  it('ignores values too short to be told from ordinary words', () => {
    expect(redactSecrets('the cat sat', ['cat'])).toBe('the cat sat');
  });

  it('removes bearer credentials and Authorization headers echoed by a server', () => {
    const text =
      '{"error":"invalid","headers":{"authorization":"Bearer abcdef123456"}} Authorization: Bearer zz99xx88yy77';
    const out = redactSecrets(text);
    expect(out).not.toContain('abcdef123456');
    expect(out).not.toContain('zz99xx88yy77');
    expect(out).toContain(`Bearer ${REDACTED}`);
  });

  it('removes the value of secret-named keys in TOML, JSON, env and query strings', () => {
    const out = redactSecrets(
      'api_key = "s3cr3t-value"\n"apiKey": "v2-secret"\nOPENAI_API_KEY=k-123456789\n?token=abc123def&x=1\npassword: hunter22',
    );
    for (const secret of ['s3cr3t-value', 'v2-secret', 'k-123456789', 'abc123def', 'hunter22']) {
      expect(out).not.toContain(secret);
    }
    expect(out).toContain(`api_key = "${REDACTED}"`);
    expect(out).toContain('&x=1');
  });

  it('keeps messages that merely talk about a secret-named key', () => {
    const text = 'engine.openai.api_key: expected text, got a number';
    expect(redactSecrets(text)).toBe(text);
    expect(redactSecrets('token: abc123def456')).toBe(`token: ${REDACTED}`);
  });

  it('keeps token counts and ordinary settings', () => {
    const text = '"prompt_tokens": 12, "max_tokens": 256, temperature = 0.2, model = "qwen3:8b"';
    expect(redactSecrets(text)).toBe(text);
  });

  it('removes provider key shapes and private key blocks', () => {
    const key = `sk-proj-${'a'.repeat(40)}`;
    const pem =
      '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----';
    const out = redactSecrets(
      `use ${key} and hf_${'B'.repeat(30)} then\n${pem}\nAKIAABCDEFGHIJKLMNOP`,
    );
    expect(out).not.toContain('aaaaaaaa');
    expect(out).not.toContain('BBBBBBBB');
    expect(out).not.toContain('b3BlbnNzaC1');
    expect(out).not.toContain('AKIAABCDEFGHIJKLMNOP');
  });

  it('redacts every string inside nested data, leaving other values', () => {
    const redact = createRedactor(['topsecret-42']);
    const value = { a: ['x topsecret-42'], b: { c: 'topsecret-42', d: 3, e: null } };
    expect(redactDeep(value, redact)).toEqual({
      a: [`x ${REDACTED}`],
      b: { c: REDACTED, d: 3, e: null },
    });
  });
});
