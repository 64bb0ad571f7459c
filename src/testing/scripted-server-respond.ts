import type { ServerResponse } from 'node:http';
import { DEFAULT_CUT_ANSWER } from './scripted-server-answer.js';
import type { RenderedAnswer, ScriptedWire } from './scripted-server-openai.js';
import type {
  RecordedRequest,
  ScriptedAnswer,
  ScriptedCutStreamFault,
  ScriptedFault,
  ScriptedReply,
  ScriptedStallFault,
  ScriptedTrickleFault,
} from './scripted-server-types.js';

/** Everything needed to carry out one reply on one response. */
export interface ReplyContext {
  readonly res: ServerResponse;
  readonly request: RecordedRequest;
  readonly wire: ScriptedWire;
  /** Whether the client asked for a streamed answer. */
  readonly stream: boolean;
  /** Renders an answer for this endpoint. */
  render(answer: ScriptedAnswer): RenderedAnswer;
  /** Starts a real timer that the server cancels when it closes. */
  schedule(ms: number, run: () => void): () => void;
}

/** Carries out a scripted reply (an answer or a fault) on the response. */
export async function performReply(reply: ScriptedReply, context: ReplyContext): Promise<void> {
  if (!('fault' in reply)) {
    await sendAnswer(context.render(reply), context);
    return;
  }
  await performFault(reply, context);
}

async function performFault(fault: ScriptedFault, context: ReplyContext): Promise<void> {
  const { res, wire } = context;
  switch (fault.fault) {
    case 'status': {
      const body = fault.body ?? wire.errorBody(`scripted HTTP ${fault.status}`, fault.status);
      const headers =
        fault.retryAfter === undefined ? {} : { 'retry-after': String(fault.retryAfter) };
      sendBody(res, fault.status, body, headers);
      return;
    }
    case 'delay':
      await delayThen(fault.ms, fault.then, context);
      return;
    case 'reset':
      res.socket?.destroy();
      return;
    case 'truncated_json':
      await sendTruncatedJson(context);
      return;
    case 'cut_stream':
      await sendCutStream(fault, context);
      return;
    case 'stall':
      await sendStall(fault, context);
      return;
    case 'trickle':
      await sendTrickle(fault, context);
      return;
  }
}

function delayThen(ms: number, then: ScriptedReply, context: ReplyContext): Promise<void> {
  return new Promise((resolve) => {
    const cancel = context.schedule(ms, () => {
      context.res.off('close', onClose);
      performReply(then, context).then(resolve, resolve);
    });
    const onClose = () => {
      cancel();
      resolve();
    };
    context.res.once('close', onClose);
  });
}

/** Sends a complete JSON (or text) body with a content length. */
export function sendBody(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

async function sendAnswer(rendered: RenderedAnswer, context: ReplyContext): Promise<void> {
  if (!context.stream) {
    sendBody(context.res, 200, rendered.json);
    return;
  }
  startStream(context);
  if (await writePieces(context.res, [...rendered.chunks, ...rendered.tail])) context.res.end();
}

async function sendTruncatedJson(context: ReplyContext): Promise<void> {
  const text = JSON.stringify(context.render({ content: 'This JSON is cut in half.' }).json);
  const half = text.slice(0, Math.floor(text.length / 2));
  if (!context.stream) {
    context.res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(half),
    });
    context.res.end(half);
    return;
  }
  startStream(context);
  if (await writePieces(context.res, [context.wire.frame(half)])) context.res.end();
}

async function sendCutStream(fault: ScriptedCutStreamFault, context: ReplyContext): Promise<void> {
  const rendered = context.render(fault.reply ?? DEFAULT_CUT_ANSWER);
  const { res } = context;
  if (!context.stream) {
    const text = JSON.stringify(rendered.json);
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    await writePieces(res, [text.slice(0, Math.floor(text.length / 2))]);
    res.destroy();
    return;
  }
  startStream(context);
  res.flushHeaders();
  const count = Math.max(0, Math.min(fault.afterChunks, rendered.chunks.length));
  await writePieces(res, rendered.chunks.slice(0, count));
  // Give the headers and pieces time to leave before the connection dies, as a crashing server's would.
  await new Promise<void>((resolve) => setImmediate(resolve));
  res.destroy();
}

async function sendStall(fault: ScriptedStallFault, context: ReplyContext): Promise<void> {
  const rendered = context.render(fault.reply ?? DEFAULT_CUT_ANSWER);
  if (!context.stream) {
    const text = JSON.stringify(rendered.json);
    context.res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    await writePieces(context.res, [text.slice(0, Math.floor(text.length / 2))]);
    return;
  }
  startStream(context);
  context.res.flushHeaders();
  const count = Math.max(0, Math.min(fault.afterChunks, rendered.chunks.length));
  await writePieces(context.res, rendered.chunks.slice(0, count));
}

async function sendTrickle(fault: ScriptedTrickleFault, context: ReplyContext): Promise<void> {
  const { res } = context;
  let piece = ' ';
  if (context.stream) {
    const rendered = context.render({ content: fault.text ?? 'tick ', toolCalls: [] });
    startStream(context);
    if (!(await writePieces(res, rendered.chunks))) return;
    piece = rendered.chunks.at(-1) ?? '';
  } else {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
  }
  await new Promise<void>((resolve) => {
    const tick = () => {
      cancel = context.schedule(fault.intervalMs, () => {
        void writePieces(res, [piece]).then((open) => (open ? tick() : resolve()));
      });
    };
    let cancel = () => {};
    res.once('close', () => {
      cancel();
      resolve();
    });
    tick();
  });
}

function startStream(context: ReplyContext): void {
  context.res.writeHead(200, {
    'content-type': context.wire.streamContentType,
    'cache-control': 'no-cache',
  });
}

/** Writes the pieces one after another; false when the client went away first. */
async function writePieces(res: ServerResponse, pieces: readonly string[]): Promise<boolean> {
  for (const piece of pieces) {
    if (res.destroyed) return false;
    const written = await new Promise<boolean>((resolve) => {
      res.write(piece, (error) => resolve(error === undefined || error === null));
    });
    if (!written) return false;
  }
  return !res.destroyed;
}
