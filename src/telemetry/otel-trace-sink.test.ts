import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRegistries } from '../core/index.js';
import { configFromToml } from '../system/config/index.js';
import { buildSystem, type JarvisSystem } from '../system/index.js';
import { assistantReply, ScriptedEngine, toolCallReply } from '../testing/index.js';
import { OpenTelemetryTraceSink } from './otel-trace-sink.js';
import { startOtlpExport } from './otlp-export.js';
import { RunTracer } from './run-tracer.js';

let home: string;
let server: Server | undefined;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), 'jarvis-otel-'));
});

afterEach(async () => {
  await new Promise((done) => (server === undefined ? done(undefined) : server.close(done)));
  server = undefined;
  await rm(home, { recursive: true, force: true });
});

function systemWith(engine: ScriptedEngine, toml = ''): JarvisSystem {
  const { config } = configFromToml(toml, join(home, 'config.toml'), {
    home,
    cwd: home,
    homeDir: home,
  });
  return buildSystem({
    config,
    engine,
    env: {},
    registries: createRegistries(),
  });
}

function scriptWithTool(): ScriptedEngine {
  return new ScriptedEngine([
    {
      ...toolCallReply({ id: 'call_7', name: 'calculator', arguments: { expression: '6*7' } }),
      usage: { promptTokens: 11, completionTokens: 5 },
    },
    assistantReply('42', { usage: { promptTokens: 21, completionTokens: 2 } }),
  ]);
}

describe('OpenTelemetryTraceSink', () => {
  it('emits invoke_agent, chat and execute_tool spans with GenAI attributes and parent links', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const system = systemWith(scriptWithTool());
    const tracer = new RunTracer({
      bus: system.bus,
      sinks: [new OpenTelemetryTraceSink({ tracer: provider.getTracer('test') })],
    });
    await system.run('6 times 7?', { tools: ['calculator'] });
    tracer.close();
    await system.close();

    const spans = exporter.getFinishedSpans();
    const byName = (name: string) => spans.filter((span) => span.name === name);
    const [agent] = byName('invoke_agent orchestrator');
    const chats = byName('chat scripted');
    const [tool] = byName('execute_tool calculator');
    expect(agent?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'orchestrator',
    });
    expect(chats).toHaveLength(2);
    expect(chats[0]?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'scripted',
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.response.finish_reasons': ['tool_calls'],
    });
    expect(tool?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'calculator',
      'gen_ai.tool.call.id': 'call_7',
      'gen_ai.tool.call.result': '42',
    });
    const turn1 = spans.find((span) => span.name === 'turn 1');
    expect(turn1?.parentSpanContext?.spanId).toBe(agent?.spanContext().spanId);
    expect(tool?.parentSpanContext?.spanId).toBe(turn1?.spanContext().spanId);
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
  });

  it('exports a run over OTLP/HTTP JSON to the configured endpoint', async () => {
    const bodies: unknown[] = [];
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8');
      });
      request.on('end', () => {
        bodies.push({
          url: request.url,
          type: request.headers['content-type'],
          key: request.headers['x-key'],
          body: JSON.parse(body),
        });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((done) => server?.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    const toml = `[telemetry]\notlp_endpoint = "http://127.0.0.1:${port}"\notlp_headers = { x-key = "k1" }\n`;
    const system = systemWith(scriptWithTool(), toml);
    await system.run('6 times 7?', { tools: ['calculator'] });
    await system.close();

    expect(bodies.length).toBeGreaterThan(0);
    const first = bodies[0] as { url: string; type: string; key: string };
    expect([first.url, first.type, first.key]).toEqual(['/v1/traces', 'application/json', 'k1']);
    type OtlpSpan = {
      name: string;
      spanId: string;
      parentSpanId?: string;
      attributes: { key: string; value: Record<string, unknown> }[];
    };
    const spans = bodies.flatMap((entry) =>
      (
        entry as { body: { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] } }
      ).body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)),
    );
    const named = (name: string) => spans.find((span) => span.name === name);
    const attr = (span: OtlpSpan | undefined, key: string) =>
      span?.attributes.find((a) => a.key === key)?.value;
    const agent = named('invoke_agent orchestrator');
    const tool = named('execute_tool calculator');
    const turn = named('turn 1');
    expect(attr(tool, 'gen_ai.tool.name')).toEqual({ stringValue: 'calculator' });
    expect(attr(named('chat scripted'), 'gen_ai.operation.name')).toEqual({ stringValue: 'chat' });
    expect(turn?.parentSpanId).toBe(agent?.spanId);
    expect(tool?.parentSpanId).toBe(turn?.spanId);
  });

  it('names the npm command when the OTLP packages are missing', async () => {
    await expect(
      startOtlpExport({
        endpoint: 'http://127.0.0.1:1',
        load: () => Promise.reject(new Error('nope')),
      }),
    ).rejects.toThrow(/npm install @opentelemetry\/sdk-trace-base/);
  });
});
