import { describe, expect, it } from 'vitest';
import { JarvisError } from '../core/index.js';
import { McpConnection } from './mcp-connection.js';
import { resolveMcpServerOptions } from './mcp-connection-options.js';
import { renderMcpContent } from './mcp-content.js';
import { buildMcpTools } from './mcp-remote-tools.js';
import { createMcpToolSource } from './mcp-tool-source.js';

// The client's pure parts: option checks, content rendering, listing hygiene and name ownership.
// Nothing here connects: connections are lazy.

function stdio(name: string, extra: Record<string, unknown> = {}) {
  return { name, transport: 'stdio' as const, command: 'never-started', ...extra };
}

describe('resolveMcpServerOptions', () => {
  it('fills the defaults: prefix `<name>.`, 60 s per call, 30 s to connect', () => {
    expect(resolveMcpServerOptions(stdio('files'))).toMatchObject({
      prefix: 'files.',
      timeoutMs: 60_000,
      connectTimeoutMs: 30_000,
    });
    expect(resolveMcpServerOptions(stdio('files', { prefix: '' })).prefix).toBe('');
  });

  it.each([
    [stdio(''), "MCP server '(unnamed)' needs a non-empty name"],
    [stdio('a', { command: ' ' }), "MCP server 'a' uses transport 'stdio' but has no command"],
    [stdio('a', { args: 'x' }), "MCP server 'a' has args that are not a list of strings"],
    [{ name: 'a', transport: 'http', url: 'ftp://x' }, "has url 'ftp://x'; expected an http://"],
    [{ name: 'a', transport: 'ws' }, "has transport 'ws'; expected 'stdio' or 'http'"],
    [stdio('a', { timeoutMs: 0 }), 'has timeoutMs 0; expected a positive number'],
  ])('rejects bad options with a clear message (%#)', (options, message) => {
    const attempt = () => resolveMcpServerOptions(options as never);
    expect(attempt).toThrow(JarvisError);
    expect(attempt).toThrow(message);
  });
});

describe('renderMcpContent', () => {
  it('keeps text and describes everything else briefly', () => {
    const text = renderMcpContent({
      content: [
        { type: 'text', text: 'caption' },
        { type: 'image', data: 'AAAA', mimeType: 'image/png' },
        { type: 'audio', data: 'AAA=', mimeType: 'audio/wav' },
        { type: 'resource_link', uri: 'file:///a.txt', name: 'a.txt', mimeType: 'text/plain' },
        { type: 'resource', resource: { uri: 'file:///b.txt', text: 'inline text' } },
        { type: 'resource', resource: { uri: 'file:///c.bin', blob: 'AAAAAA==', mimeType: 'x/y' } },
      ],
    });
    expect(text.split('\n')).toEqual([
      'caption',
      '[image: image/png, 3 bytes]',
      '[audio: audio/wav, 2 bytes]',
      '[resource link: a.txt <file:///a.txt>, text/plain]',
      'inline text',
      '[resource: file:///c.bin, x/y, 4 bytes]',
    ]);
  });

  it('falls back to the structured content when there is no content', () => {
    expect(renderMcpContent({ content: [], structuredContent: { ok: true } })).toBe('{"ok":true}');
    expect(renderMcpContent({ content: [] })).toBe('');
  });
});

describe('buildMcpTools', () => {
  it('prefixes names and skips unusable, repeated or uncompilable tools with warnings', () => {
    const connection = new McpConnection({ server: stdio('srv') });
    const schema = { type: 'object' as const };
    const batch = buildMcpTools(connection, [
      { name: 'good', description: 'Fine.', inputSchema: schema },
      { name: 'bad name!', inputSchema: schema },
      { name: 'good', inputSchema: schema },
      { name: 'broken', inputSchema: { type: 'object', properties: { x: { type: 'nonsense' } } } },
    ]);
    expect(batch.tools.map((tool) => tool.spec.name)).toEqual(['srv.good']);
    expect(batch.tools[0]?.spec).toMatchObject({ description: 'Fine.', timeoutMs: 91_000 });
    expect(batch.warnings.map((warning) => warning.message)).toEqual([
      expect.stringContaining("name 'bad name!' is not 1-128 letters"),
      expect.stringContaining("tool 'good' is listed twice"),
      expect.stringContaining("skipped tool 'broken': Tool 'srv.broken' has an invalid parameters"),
    ]);
  });
});

describe('McpToolSource naming', () => {
  it('gives a name to the server with the longest matching prefix', () => {
    const source = createMcpToolSource([
      stdio('a'),
      stdio('ab', { prefix: 'a.b.' }),
      stdio('plain', { prefix: 'p_' }),
    ]);
    expect(source.ownerOf('a.read')?.name).toBe('a');
    expect(source.ownerOf('a.b.read')?.name).toBe('ab');
    expect(source.ownerOf('p_tool')?.name).toBe('plain');
    expect(source.ownerOf('calculator')).toBeUndefined();
    expect(source.ownerOf('a.')).toBeUndefined();
  });

  it('refuses two servers with the same name', () => {
    expect(() => createMcpToolSource([stdio('x'), stdio('x')])).toThrow(
      "Two MCP servers are named 'x'",
    );
  });

  it('resolves nothing and connects nothing for names under no prefix', async () => {
    const source = createMcpToolSource([stdio('a')]);
    expect(await source.tools(['calculator', 'think'])).toEqual({
      tools: [],
      warnings: [],
      unresolved: ['calculator', 'think'],
    });
    expect(source.connections[0]?.connected).toBe(false);
    await source.close();
    await source.close();
  });
});
