// Two roles, each a process of its own so that a benchmark measures only one side, started by agent.bench.ts:
// - `node agent-server.mjs serve` (fork): a scripted model server. Answers a question with one calculator call and a
//   tool result with the final answer; reports its URL over IPC and exits when its parent disconnects.
// - `node agent-server.mjs runs <openjarvis|hand-written> <url> <checkpoints...>` (fork): a client doing that
//   run sequentially until the last checkpoint, reporting the RSS right after its import, at each checkpoint
//   and the peak over its whole life, so that the numbers are the runs' own and not the bench harness's.
import http, { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { syncBuiltinESMExports } from 'node:module';

const QUESTION = 'What is 15% of 340?';
const MB = 1024 * 1024;

async function serve() {
  keepConnectionsOpen();
  const { startScriptedOpenAIServer } = await import('../dist/testing/index.js');
  const server = await startScriptedOpenAIServer({
    handler: (request) => {
      // The scripted server records every request for tests; a model server keeps nothing.
      if (server.requests.length > 1000) server.requests.length = 0;
      const messages = request.body?.messages ?? [];
      const last = messages[messages.length - 1];
      if (last?.role === 'tool')
        return { content: 'The answer is 51.', usage: { promptTokens: 40, completionTokens: 6 } };
      return {
        toolCalls: [
          { id: 'call_1', name: 'calculator', arguments: { expression: '340 * 15 / 100' } },
        ],
        usage: { promptTokens: 30, completionTokens: 12 },
      };
    },
  });
  process.send?.({ url: server.url });
  process.on('disconnect', () => {
    void server.close().then(() => process.exit(0));
  });
}

/**
 * Servers created from here on keep idle keep-alive connections for 10 minutes instead of Node's 5 s. Each row of
 * the bench idles while the others take their turns, and on a loaded machine a turn can outlast 5 s: the server
 * then closed the row's idle connections, and the hand-written loop (which has no retry, as most hand-written
 * clients) failed with "socket hang up" on the next request. The scripted server does not expose its
 * node:http server, so its `createServer` is wrapped here, before it is loaded.
 */
function keepConnectionsOpen() {
  const createServer = http.createServer;
  http.createServer = (...args) => {
    const server = createServer(...args);
    server.keepAliveTimeout = 600_000;
    return server;
  };
  syncBuiltinESMExports();
}

/** The floor: the same two requests and one calculator call, written by hand over node:http. */
function handWrittenLoop(url) {
  const agent = new HttpAgent({ keepAlive: true });
  const target = new URL('/v1/chat/completions', url);
  const tools = [
    {
      type: 'function',
      function: {
        name: 'calculator',
        description: 'Evaluate a mathematical expression safely.',
        parameters: {
          type: 'object',
          properties: { expression: { type: 'string' } },
          required: ['expression'],
        },
      },
    },
  ];
  const post = (body) =>
    new Promise((resolve, reject) => {
      const text = JSON.stringify(body);
      const req = httpRequest(
        target,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
          },
        },
        (res) => {
          const chunks = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  return async () => {
    const messages = [{ role: 'user', content: QUESTION }];
    const first = await post({ model: 'bench', messages, tools });
    const call = first.choices[0].message.tool_calls?.[0];
    if (call === undefined) throw new Error('expected a tool call');
    const { expression } = JSON.parse(call.function.arguments);
    const value = String((Number(expression.split('*')[0]) * 15) / 100);
    messages.push(first.choices[0].message, {
      role: 'tool',
      tool_call_id: call.id,
      content: value,
    });
    const second = await post({ model: 'bench', messages, tools });
    return second.choices[0].message.content ?? '';
  };
}

async function openJarvisLoop(url) {
  const library = await import('../dist/index.js');
  const engine = new library.OpenAICompatibleEngine({
    baseUrl: url,
    engineId: 'vllm',
    textToolCalls: false,
  });
  const agent = new library.OrchestratorAgent({
    engine,
    model: 'bench',
    tools: [new library.CalculatorTool()],
  });
  return async () => (await agent.run(QUESTION)).content;
}

async function measureRuns(side, url, checkpoints) {
  const run = side === 'openjarvis' ? await openJarvisLoop(url) : handWrittenLoop(url);
  const importRssMb = process.memoryUsage().rss / MB;
  const points = [];
  let done = 0;
  const started = performance.now();
  for (const checkpoint of checkpoints) {
    for (; done < checkpoint; done += 1) {
      const answer = await run();
      if (answer !== 'The answer is 51.') throw new Error(`unexpected answer: ${answer}`);
    }
    const { rss, heapUsed } = process.memoryUsage();
    points.push({
      runs: done,
      rssMb: rss / MB,
      heapMb: heapUsed / MB,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      elapsedMs: performance.now() - started,
    });
  }
  process.send?.({ importRssMb, points }, () => process.exit(0));
}

if (process.argv[2] === 'runs') {
  const [, , , side, url, ...checkpoints] = process.argv;
  await measureRuns(side, url, checkpoints.map(Number));
} else {
  await serve();
}
