import { Agent, request as httpRequest } from 'node:http';
import type { Message, OpenAIFunctionTool } from '../src/index.js';
import type { BenchSuite } from './harness.js';
import { library, testing } from './library.js';

const TOOLS: readonly OpenAIFunctionTool[] = [
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
  {
    type: 'function',
    function: {
      name: 'think',
      description: 'A reasoning scratchpad.',
      parameters: {
        type: 'object',
        properties: { thought: { type: 'string' } },
        required: ['thought'],
      },
    },
  },
];
const MESSAGES: readonly Message[] = [{ role: 'user', content: 'What is 15% of 340?' }];
const REPLY = {
  toolCalls: [{ id: 'call_1', name: 'calculator', arguments: { expression: '340 * 15 / 100' } }],
};

/** The same request body an engine sends, for the bare clients. */
const BODY = JSON.stringify({
  model: 'bench',
  messages: MESSAGES,
  tools: TOOLS,
  stream: false,
});

/** Starts the scripted servers and returns the suite with a function that closes everything. */
export async function engineRoundTripSuite(): Promise<{
  suite: BenchSuite;
  close: () => Promise<void>;
}> {
  const openaiServer = await testing.startScriptedOpenAIServer({ handler: () => REPLY });
  const ollamaServer = await testing.startScriptedOpenAIServer({
    mode: 'ollama',
    handler: () => REPLY,
  });
  const openai = new library.OpenAICompatibleEngine({
    baseUrl: openaiServer.url,
    engineId: 'vllm',
  });
  const ollama = new library.OllamaEngine({ host: ollamaServer.url });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const chatUrl = new URL('/v1/chat/completions', openaiServer.url);
  const options = { model: 'bench', tools: TOOLS };
  const suite: BenchSuite = {
    name: 'One chat round trip (two tool definitions, a tool-call reply) against the scripted server',
    goal: 'OpenAICompatibleEngine within 1.3x of bare node:http (keep-alive)',
    cases: [
      { name: 'bare node:http keep-alive', run: () => postWithHttp(chatUrl, agent) },
      {
        name: 'global fetch',
        baseline: 'bare node:http keep-alive',
        run: () => postWithFetch(chatUrl),
      },
      {
        name: 'OpenAICompatibleEngine.generate',
        baseline: 'bare node:http keep-alive',
        run: () => openai.generate(MESSAGES, options),
      },
      {
        name: 'OllamaEngine.generate',
        baseline: 'bare node:http keep-alive',
        run: () => ollama.generate(MESSAGES, options),
      },
    ],
  };
  const close = async () => {
    agent.destroy();
    await Promise.all([openai.close(), ollama.close()]);
    await Promise.all([openaiServer.close(), ollamaServer.close()]);
  };
  return { suite, close };
}

function postWithHttp(url: URL, agent: Agent): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(BODY);
  });
}

async function postWithFetch(url: URL): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: BODY,
  });
  return response.json();
}
