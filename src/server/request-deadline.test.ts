import { EventEmitter } from 'node:events';
import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clientConnectionOf, type NodeResponseLike, RequestDeadline } from './request-deadline.js';

/** A stand-in for the Node response of a request: `finish()` answers it, `close()` ends its connection. */
class FakeResponse extends EventEmitter implements NodeResponseLike {
  writableFinished = false;
  destroyed = false;

  finish(): void {
    this.writableFinished = true;
  }

  close(): void {
    this.destroyed = true;
    this.emit('close');
  }
}

afterEach(() => {
  vi.useRealTimers();
});

describe('RequestDeadline', () => {
  it('stops the run when the client signal aborts, and remembers why', () => {
    const client = new AbortController();
    const deadline = new RequestDeadline(client.signal, 60_000);
    expect(deadline.signal.aborted).toBe(false);
    client.abort();
    expect([deadline.signal.aborted, deadline.reason]).toEqual([true, 'client_gone']);
    deadline.dispose();
  });

  it('stops the run when the Node response closes before it finished', () => {
    const response = new FakeResponse();
    const deadline = new RequestDeadline(response, 60_000);
    expect(response.listenerCount('close')).toBe(1);
    response.close();
    expect([deadline.signal.aborted, deadline.reason]).toEqual([true, 'client_gone']);
    deadline.dispose();
    expect(response.listenerCount('close')).toBe(0);
  });

  it('does not stop a run whose response finished before the connection closed', () => {
    const response = new FakeResponse();
    const deadline = new RequestDeadline(response, 60_000);
    response.finish();
    response.close();
    expect(deadline.signal.aborted).toBe(false);
    deadline.dispose();
  });

  it('stops at once when the client was already gone', () => {
    const gone = new FakeResponse();
    gone.close();
    expect(new RequestDeadline(gone, 60_000).reason).toBe('client_gone');
    expect(new RequestDeadline(AbortSignal.abort(), 60_000).reason).toBe('client_gone');
  });

  it('stops the run when the time limit passes; the first reason wins', () => {
    vi.useFakeTimers();
    const response = new FakeResponse();
    const deadline = new RequestDeadline(response, 1_000);
    vi.advanceTimersByTime(999);
    expect(deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadline.reason).toBe('timeout');
    response.close();
    expect(deadline.reason).toBe('timeout');
    deadline.dispose();
  });

  it('forgets the timer and the client on dispose', () => {
    vi.useFakeTimers();
    const client = new AbortController();
    const deadline = new RequestDeadline(client.signal, 1_000);
    deadline.dispose();
    vi.advanceTimersByTime(5_000);
    client.abort();
    expect(deadline.signal.aborted).toBe(false);
  });
});

describe('clientConnectionOf', () => {
  it('uses the Node response under @hono/node-server, else the request signal', async () => {
    const app = new Hono();
    let seen: unknown;
    app.get('/', (c) => {
      seen = clientConnectionOf(c);
      return c.text('ok');
    });
    const outgoing = new FakeResponse();
    await app.request('/', {}, { outgoing });
    expect(seen).toBe(outgoing);
    await app.request('/');
    expect(seen).toBeInstanceOf(AbortSignal);
    await app.request('/', {}, { outgoing: { on: 'not a function' } });
    expect(seen).toBeInstanceOf(AbortSignal);
  });
});
