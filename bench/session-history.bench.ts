// Session history benchmark (issue 17): the cost of history handling per turn (prepareTurnHistory plus the store
// write of the turn) for a 500-message session next to a fresh session, measured side by side in the same run.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import type { Message } from '../src/core/index.js';
import type * as Sessions from '../src/sessions/index.js';
import type * as History from '../src/sessions/session-history.js';
import type * as Counting from '../src/sessions/token-count.js';
import { testing } from './library.js';

// The history modules are not exported from the package entry yet; the bench takes them from the built folder.
const dist = (path: string) => new URL(`../dist/sessions/${path}`, import.meta.url).href;
const sessions = (await import(dist('index.js'))) as typeof Sessions;
const history = (await import(dist('session-history.js'))) as typeof History;
const counting = (await import(dist('token-count.js'))) as typeof Counting;

/** Options of `sessionHistoryBench`. */
export interface SessionHistoryBenchOptions {
  /** Fewer samples (a few seconds). */
  readonly quick?: boolean;
}

const TURNS = 125; // 4 messages each: 500 messages
const GOAL_ADDED_MS = 1;
const CONTEXT_TOKENS = 65_536; // large enough that the 500 messages fit and nothing is folded
const ANSWER_TOKENS = 4_096;

const words = (chars: number, seed: string) =>
  `${seed} ${'the quick brown fox jumps over the lazy dog '.repeat(Math.ceil(chars / 44))}`.slice(
    0,
    chars,
  );

/** A turn of four messages: question, a tool call, its result, the answer. */
function turnMessages(n: number): Message[] {
  return [
    { role: 'user', content: words(200, `question ${n}`) },
    {
      role: 'assistant',
      content: '',
      toolCalls: [{ id: `c${n}`, name: 'web_search', arguments: `{"query":"${words(60, 'q')}"}` }],
    },
    { role: 'tool', content: words(400, `result ${n}`), toolCallId: `c${n}`, name: 'web_search' },
    { role: 'assistant', content: words(300, `answer ${n}`) },
  ];
}

function newTurn(n: number): Sessions.NewSessionTurn {
  return {
    messages: turnMessages(n),
    agent: 'orchestrator',
    model: 'bench',
    engine: 'scripted',
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    status: 'completed',
    startedMs: 1_000,
    endedMs: 1_000 + n,
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** One place to store sessions: a store, a template 500-message session, and a way to copy it fast. */
interface Place {
  readonly label: string;
  readonly store: Sessions.SqliteSessionStore;
  readonly clone: () => string;
  /** Checkpoints the write-ahead log, so a timed write never pays for the untimed setup's pages. */
  readonly settle: () => void;
  readonly close: () => Promise<void>;
}

async function openPlace(label: string, root: string): Promise<Place> {
  const folder = mkdtempSync(join(root, 'jarvis-history-bench-'));
  const dbPath = join(folder, 'sessions.db');
  const store = new sessions.SqliteSessionStore({ dbPath });
  const template = await store.create();
  for (let n = 1; n <= TURNS; n += 1) await store.appendTurn(template.id, newTurn(n));
  const raw = new Database(dbPath);
  const copySession = raw.prepare(
    `INSERT INTO sessions (id, title, turn_count, created_ms, updated_ms)
     SELECT ?, title, turn_count, created_ms, updated_ms FROM sessions WHERE id = ?`,
  );
  const copyTurns = raw.prepare(
    `INSERT INTO session_turns SELECT ?, seq, messages, agent, model, engine, prompt_tokens, completion_tokens,
       total_tokens, status, started_ms, ended_ms FROM session_turns WHERE session_id = ?`,
  );
  let copies = 0;
  const clone = raw.transaction(() => {
    copies += 1;
    const id = `ses_${copies.toString(16).padStart(16, '0')}`;
    copySession.run(id, template.id);
    copyTurns.run(id, template.id);
    return id;
  });
  return {
    label,
    store,
    clone: () => clone.immediate(),
    settle: () => {
      raw.pragma('wal_checkpoint(TRUNCATE)');
    },
    close: async () => {
      raw.close();
      await store.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** Prepares one turn's history and writes the turn; returns [prepare ms, prepare + write ms]. */
async function timedTurn(
  place: Place,
  id: string,
  cache: History.SessionHistoryCache,
  n: number,
): Promise<[number, number]> {
  const engine = new testing.ScriptedEngine(); // any model call (a fold) would fail and show in the report
  const input: Message[] = [{ role: 'user', content: words(200, `question ${n}`) }];
  place.settle();
  const started = performance.now();
  const prepared = await history.prepareTurnHistory(place.store, id, {
    systemPrompt: 'You are Jarvis.',
    input,
    contextTokens: CONTEXT_TOKENS,
    answerTokens: ANSWER_TOKENS,
    counter: counting.estimateCounter,
    engine,
    model: 'bench',
    cache,
  });
  const preparedAt = performance.now();
  await place.store.appendTurn(id, newTurn(n));
  const ended = performance.now();
  if (prepared.report.foldedTurns + prepared.report.droppedTurns > 0 || engine.calls.length > 0) {
    throw new Error('the benchmark session was folded: it measured more than history handling');
  }
  return [preparedAt - started, ended - started];
}

type CaseName = 'fresh session' | '500 messages, repeat turn' | '500 messages, first turn';
const CASES: readonly CaseName[] = [
  'fresh session',
  '500 messages, repeat turn',
  '500 messages, first turn',
];

/** One sample of a case: its session set up untimed, then one timed turn. */
async function sample(place: Place, name: CaseName, n: number): Promise<[number, number]> {
  const cache = new history.SessionHistoryCache();
  if (name === 'fresh session') return timedTurn(place, (await place.store.create()).id, cache, n);
  const id = place.clone();
  if (name === '500 messages, repeat turn') await timedTurn(place, id, cache, n); // the turn before
  return timedTurn(place, id, cache, n + 1);
}

async function measurePlace(place: Place, samples: number): Promise<string[]> {
  const times = new Map<CaseName, [number[], number[]]>(CASES.map((name) => [name, [[], []]]));
  for (let round = 0; round < samples + 3; round += 1) {
    const order = round % 2 === 0 ? CASES : [...CASES].reverse();
    for (const name of order) {
      const [prepareMs, totalMs] = await sample(place, name, TURNS + 1 + round * 2);
      if (round < 3) continue; // warm-up rounds
      times.get(name)?.[0].push(prepareMs);
      times.get(name)?.[1].push(totalMs);
    }
  }
  const fresh = times.get('fresh session') ?? [[], []];
  const signed = (ms: number) => `${ms >= 0 ? '+' : ''}${ms.toFixed(3)} ms`;
  return CASES.map((name) => {
    const [prepare, total] = times.get(name) ?? [[], []];
    const added = median(total) - median(fresh[1]);
    const met = added <= GOAL_ADDED_MS ? 'goal met' : 'goal NOT met';
    const note = name === '500 messages, repeat turn' ? ` (${met})` : '';
    const versus =
      name === 'fresh session'
        ? 'baseline'
        : `${signed(median(prepare) - median(fresh[0]))} / ${signed(added)}${note}`;
    return [
      place.label.padEnd(18),
      name.padEnd(26),
      `${median(prepare).toFixed(3)} ms`.padEnd(10),
      `${median(total).toFixed(3)} ms`.padEnd(13),
      versus,
    ].join('  ');
  });
}

/** Runs the benchmark on tmpfs (no fsync cost) and on disk, and returns the report table. */
export async function sessionHistoryBench(
  options: SessionHistoryBenchOptions = {},
): Promise<string> {
  const quick = options.quick === true;
  const places: [string, string, number][] = [['disk (tmpdir)', tmpdir(), quick ? 5 : 25]];
  if (existsSync('/dev/shm')) places.unshift(['tmpfs (/dev/shm)', '/dev/shm', quick ? 15 : 60]);
  const lines = [
    `## Session history per turn: prepareTurnHistory + the turn's store write (medians; ${TURNS * 4}-message sessions, ${CONTEXT_TOKENS}-token context)`,
    `${'store'.padEnd(18)}  ${'case'.padEnd(26)}  ${'prepare'.padEnd(10)}  ${'prepare+write'.padEnd(13)}  added vs fresh (prepare / prepare+write)`,
  ];
  for (const [label, root, samples] of places) {
    const place = await openPlace(label, root);
    try {
      lines.push(...(await measurePlace(place, samples)));
    } finally {
      await place.close();
    }
  }
  lines.push(
    `goal: <= ${GOAL_ADDED_MS} ms added at the median (prepare+write) for the repeat turn of a 500-message session; the first turn after a start reads and counts every turn once (and its write follows another connection's copy); on disk the write's fsync (~10 ms, +-2 ms) dominates`,
  );
  return lines.join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(await sessionHistoryBench({ quick: process.argv.includes('--quick') }));
}
