import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '../../src/testing/index.js';
import { usePostgres } from '../support/postgres-server.js';
import { runCli } from '../support/run-cli.js';

// `[storage] backend = "postgres"`: a real `jarvis ask` stores its model call and trace in PostgreSQL, and the
// built CLI's `jarvis telemetry stats|runs|show` read them back from there (no telemetry.db is written).

const postgres = usePostgres();
let home: string | undefined;
let server: ScriptedOpenAIServer | undefined;

afterAll(async () => {
  await server?.close();
  if (home !== undefined) await rm(home, { recursive: true, force: true });
});

describe('jarvis telemetry on PostgreSQL', () => {
  it('reads back what jarvis ask stored: stats, runs and one run', async (ctx) => {
    const url = await postgres.server(ctx).createDatabase();
    home = await mkdtemp(join(tmpdir(), 'jarvis-telemetry-pg-'));
    const jarvisHome = join(home, '.openjarvis');
    await mkdir(jarvisHome, { recursive: true });
    await writeFile(
      join(jarvisHome, 'config.toml'),
      '[storage]\nbackend = "postgres"\npool_size = 2\n',
    );
    const env = { HOME: home, OPENJARVIS_HOME: jarvisHome, OPENJARVIS_DATABASE_URL: url };
    server = await startScriptedOpenAIServer({
      script: [
        { content: 'Hello.', usage: { promptTokens: 5, completionTokens: 2, totalTokens: 7 } },
      ],
    });
    const ask = ['ask', '--engine', 'openai', '--base-url', server.baseUrl, '--model', 'm'];
    const asked = await runCli([...ask, '--agent', 'simple', 'Hi'], { env });
    expect(asked).toMatchObject({ code: 0, stdout: 'Hello.\n' });

    const [stats, runs] = await Promise.all([
      runCli(['telemetry', 'stats', '--json'], { env }),
      runCli(['telemetry', 'runs', '--json'], { env }),
    ]);
    expect(stats).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(stats.stdout)).toEqual([
      expect.objectContaining({ model: 'm', calls: 1, failures: 0, prompt_tokens: 5 }),
    ]);
    expect(runs).toMatchObject({ code: 0, stderr: '' });
    const [run] = JSON.parse(runs.stdout) as { id: string }[];
    expect(run).toMatchObject({ agent: 'simple', model: 'm', model_calls: 1, status: 'ok' });

    const shown = await runCli(['telemetry', 'show', String(run?.id).slice(0, 8), '--json'], {
      env,
    });
    expect(shown).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(shown.stdout)).toMatchObject({
      id: run?.id,
      spans: [expect.objectContaining({ kind: 'agent', name: 'invoke_agent simple' })],
    });
    expect(existsSync(join(jarvisHome, 'telemetry.db'))).toBe(false);
  }, 60_000);
});
