import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { type ScriptedModelHub, startScriptedModelHub } from './scripted-model-hub.js';

const CONTENT = new TextEncoder().encode('0123456789abcdef');
const SHA256 = createHash('sha256').update(CONTENT).digest('hex');
let hub: ScriptedModelHub | undefined;

afterEach(async () => {
  await hub?.close();
  hub = undefined;
});

describe('startScriptedModelHub', () => {
  it('redirects resolve/ with the SHA-256 and size headers, then serves ranges with 206', async () => {
    hub = await startScriptedModelHub({
      files: [{ repository: 'o/r', path: 'm.gguf', content: CONTENT }],
    });
    const head = await fetch(`${hub.url}o/r/resolve/main/m.gguf`, {
      method: 'HEAD',
      redirect: 'manual',
    });
    expect(head.status).toBe(302);
    expect(head.headers.get('x-linked-etag')).toBe(`"${SHA256}"`);
    expect(head.headers.get('x-linked-size')).toBe('16');
    const ranged = await fetch(`${hub.url}o/r/resolve/main/m.gguf`, {
      headers: { range: 'bytes=4-7' },
    });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe('bytes 4-7/16');
    expect(await ranged.text()).toBe('4567');
    expect(hub.rangedGets('m.gguf')).toBe(1);
  });

  it('redirects to a second origin that serves the file without the token, logging who got what', async () => {
    hub = await startScriptedModelHub({
      files: [{ repository: 'o/r', path: 'm.gguf', content: CONTENT }],
      requiredToken: 'hf_t',
      crossOriginRedirect: true,
    });
    expect(new URL(hub.cdnUrl).origin).not.toBe(new URL(hub.url).origin);
    const head = await fetch(`${hub.url}o/r/resolve/main/m.gguf`, {
      method: 'HEAD',
      redirect: 'manual',
      headers: { authorization: 'Bearer hf_t' },
    });
    expect(head.status).toBe(302);
    const location = head.headers.get('location') ?? '';
    expect(location).toBe(`${hub.cdnUrl}cdn/o/r/main/m.gguf`);
    hub.refuseNextRangedGets(1);
    expect((await fetch(location, { headers: { range: 'bytes=0-3' } })).status).toBe(503);
    const ranged = await fetch(location, { headers: { range: 'bytes=0-3' } });
    expect(await ranged.text()).toBe('0123');
    expect((await fetch(`${hub.cdnUrl}o/r/resolve/main/m.gguf`)).status).toBe(404);
    expect(hub.requests.map((r) => [r.origin, r.method, r.authorization])).toEqual([
      [new URL(hub.url).origin, 'HEAD', 'Bearer hf_t'],
      [new URL(hub.cdnUrl).origin, 'GET', undefined],
      [new URL(hub.cdnUrl).origin, 'GET', undefined],
      [new URL(hub.cdnUrl).origin, 'GET', undefined],
    ]);
    expect(hub.rangedGets('m.gguf')).toBe(2);
  });

  it('answers 404 for unknown files and 416 for unsatisfiable ranges', async () => {
    hub = await startScriptedModelHub({
      files: [{ repository: 'o/r', path: 'm.gguf', content: CONTENT }],
      redirect: false,
    });
    expect((await fetch(`${hub.url}o/r/resolve/main/x.gguf`)).status).toBe(404);
    const bad = await fetch(`${hub.url}o/r/resolve/main/m.gguf`, {
      headers: { range: 'bytes=99-' },
    });
    expect(bad.status).toBe(416);
    await bad.arrayBuffer();
  });

  it('cuts the next ranged body once', async () => {
    hub = await startScriptedModelHub({
      files: [{ repository: 'o/r', path: 'm.gguf', content: CONTENT }],
    });
    hub.cutNextBody(5);
    const url = `${hub.url}o/r/resolve/main/m.gguf`;
    const cut = await fetch(url, { headers: { range: 'bytes=0-15' } });
    await expect(cut.arrayBuffer()).rejects.toThrow();
    const whole = await fetch(url, { headers: { range: 'bytes=0-15' } });
    expect(await whole.text()).toBe('0123456789abcdef');
  });
});
