import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { limitBodyBytes, readBodyText } from './body-limit.js';

/** An app answering the body through `limitBodyBytes`, or (`read`) through `readBodyText` alone. */
function limitedApp(maxBytes: number, read = false): Hono {
  const app = new Hono();
  if (read) {
    app.post('/echo', async (c) => {
      const text = await readBodyText(c, maxBytes);
      return text === undefined ? c.text('too large', 413) : c.text(`got ${text}`);
    });
    return app;
  }
  app.post(
    '/echo',
    limitBodyBytes(maxBytes, (c) => c.text('too large', 413)),
    async (c) => c.text(`got ${await c.req.text()}`),
  );
  return app;
}

/** A body sent in pieces without a Content-Length, as a chunked upload arrives. */
function chunked(...pieces: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(encoder.encode(piece));
      controller.close();
    },
  });
}

function post(
  app: Hono,
  body: string | ReadableStream<Uint8Array>,
  headers: Record<string, string> = {},
) {
  return app.request('/echo', { method: 'POST', body, headers, duplex: 'half' } as RequestInit);
}

describe('limitBodyBytes', () => {
  it('passes a body whose Content-Length is within the limit, readable by the handler', async () => {
    const response = await post(limitedApp(10), '0123456789', { 'content-length': '10' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('got 0123456789');
  });

  it('refuses a Content-Length over the limit, or one that is not a number', async () => {
    const app = limitedApp(10);
    const over = await post(app, '01234567890', { 'content-length': '11' });
    expect([over.status, await over.text()]).toEqual([413, 'too large']);
    const bogus = await post(app, 'x', { 'content-length': '1e3' });
    expect(bogus.status).toBe(413);
  });

  it('counts a body without a Content-Length as it arrives', async () => {
    const app = limitedApp(10);
    const small = await post(app, chunked('01234', '56789'));
    expect([small.status, await small.text()]).toEqual([200, 'got 0123456789']);
    const big = await post(app, chunked('01234', '56789', 'x'));
    expect([big.status, await big.text()]).toEqual([413, 'too large']);
  });
});

describe('readBodyText', () => {
  it('reads a body whose Content-Length is within the limit, and refuses one over it or not a number', async () => {
    const app = limitedApp(10, true);
    const ok = await post(app, '0123456789', { 'content-length': '10' });
    expect([ok.status, await ok.text()]).toEqual([200, 'got 0123456789']);
    const over = await post(app, '01234567890', { 'content-length': '11' });
    expect([over.status, await over.text()]).toEqual([413, 'too large']);
    expect((await post(app, 'x', { 'content-length': '1e3' })).status).toBe(413);
  });

  it('counts a body without a Content-Length as it arrives, multi-byte characters split across chunks included', async () => {
    const app = limitedApp(10, true);
    const euro = new TextEncoder().encode('€'); // 3 bytes, sent in two chunks
    const split = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(euro.subarray(0, 1));
        controller.enqueue(euro.subarray(1));
        controller.close();
      },
    });
    const small = await post(app, split);
    expect([small.status, await small.text()]).toEqual([200, 'got €']);
    const big = await post(app, chunked('01234', '56789', 'x'));
    expect([big.status, await big.text()]).toEqual([413, 'too large']);
  });
});
