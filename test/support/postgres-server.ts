// A throwaway PostgreSQL for tests: initdb into a temporary folder, pg_ctl on a free loopback port, stopped by
// its own data folder at the end. Debian's `postgresql` package provides the binaries.
import { execFile } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { appendFile, chmod, chown, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { POSTGRES_TEMPLATE_VARIABLE } from './postgres-template.js';

const run = promisify(execFile);

/** A PostgreSQL server this process started; `stop()` ends it and removes its folder. */
export interface PostgresServer {
  /** `postgres://jarvis@127.0.0.1:<port>/postgres` (trust authentication: no password). */
  readonly url: string;
  /** The server's data folder (with `log` beside it in the parent folder). */
  readonly dataDir: string;
  /** The postmaster's process id (changes on `restart()`). */
  pid(): number | undefined;
  /** Creates a fresh, empty database and returns its URL. */
  createDatabase(): Promise<string>;
  /** `pg_ctl restart -m fast`: every connection is cut, the server comes back on the same port. */
  restart(): Promise<void>;
  /** Stops the server (`pg_ctl stop -m immediate`) and removes its folder. Calling it twice is harmless. */
  stop(): Promise<void>;
}

/** Why the server could not be started here (the test reports it instead of running). */
export interface PostgresSkipped {
  readonly skipped: string;
}

const NOT_INSTALLED = 'skipped: PostgreSQL not installed (apt-get install postgresql)';
const USER = 'jarvis';
const START_TIMEOUT_SECONDS = 60;

interface Binaries {
  readonly initdb: string;
  readonly pgCtl: string;
}

/** Finds `initdb` and `pg_ctl`: on PATH, else in the newest `/usr/lib/postgresql/<version>/bin`. */
export function findPostgresBinaries(): Binaries | undefined {
  const onPath = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir !== '');
  let debian: string[] = [];
  try {
    debian = readdirSync('/usr/lib/postgresql')
      .sort((a, b) => Number(b) - Number(a))
      .map((version) => join('/usr/lib/postgresql', version, 'bin'));
  } catch {
    // No Debian layout: PATH only.
  }
  for (const dir of [...onPath, ...debian]) {
    if (executable(join(dir, 'initdb')) && executable(join(dir, 'pg_ctl'))) {
      return { initdb: join(dir, 'initdb'), pgCtl: join(dir, 'pg_ctl') };
    }
  }
  return undefined;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A loopback port nobody listens on right now. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Runs a PostgreSQL binary, as the `postgres` user when we are root (initdb and postgres refuse root). */
async function runAs(asPostgres: boolean, command: string, args: readonly string[]) {
  const [file, argv] = asPostgres
    ? ['runuser', ['-u', 'postgres', '--', command, ...args]]
    : [command, [...args]];
  try {
    return await run(file, argv, { timeout: START_TIMEOUT_SECONDS * 1_000 });
  } catch (error) {
    const failed = error as Error & { stderr?: string; stdout?: string };
    throw new Error(
      `${command} ${args.join(' ')} failed: ${failed.message}\n${failed.stdout ?? ''}${failed.stderr ?? ''}`,
    );
  }
}

/** Ownership for the `postgres` user when we are root. */
async function postgresIds(): Promise<{ uid: number; gid: number } | undefined> {
  if (userInfo().uid !== 0) return undefined;
  const { stdout } = await run('id', ['-u', 'postgres']).catch(() => ({ stdout: '' }));
  const { stdout: group } = await run('id', ['-g', 'postgres']).catch(() => ({ stdout: '' }));
  const uid = Number.parseInt(stdout, 10);
  const gid = Number.parseInt(group, 10);
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) {
    throw new Error('running as root needs a `postgres` user to run PostgreSQL as');
  }
  return { uid, gid };
}

function serverSettings(port: number, socketDir: string): string {
  return [
    '',
    '# Added by test/support/postgres-server.ts',
    `port = ${port}`,
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${socketDir}'`,
    'fsync = on',
    'synchronous_commit = on',
    'shared_buffers = 16MB',
    'max_connections = 200',
    'max_wal_size = 256MB',
    "dynamic_shared_memory_type = 'posix'",
    'log_min_messages = warning',
    '',
  ].join('\n');
}

const HBA = ['local all all trust', 'host all all 127.0.0.1/32 trust', ''].join('\n');

/**
 * Starts a private PostgreSQL (initdb into a `mkdtemp` folder, trust authentication on 127.0.0.1 only, fsync
 * on, small shared buffers), or says why it cannot here. Call it once per test file in `beforeAll`, and
 * `stop()` in `afterAll`.
 */
export async function startPostgres(): Promise<PostgresServer | PostgresSkipped> {
  const binaries = findPostgresBinaries();
  if (binaries === undefined) return { skipped: NOT_INSTALLED };
  const owner = await postgresIds();
  const folder = mkdtempSync(join(tmpdir(), 'jarvis-pg-'));
  try {
    return await initAndStart(binaries, owner, folder);
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
}

async function initAndStart(
  binaries: Binaries,
  owner: { uid: number; gid: number } | undefined,
  folder: string,
): Promise<PostgresServer> {
  const dataDir = join(folder, 'data');
  const socketDir = folder;
  const logFile = join(folder, 'log');
  const asPostgres = owner !== undefined;
  await writeFile(logFile, '');
  if (owner !== undefined) {
    await chown(folder, owner.uid, owner.gid);
    await chown(logFile, owner.uid, owner.gid);
  }
  await chmod(folder, 0o700);
  await createDataDir(binaries, owner, dataDir);
  await writeFile(join(dataDir, 'pg_hba.conf'), HBA);
  let port = 0;
  for (let attempt = 1; ; attempt += 1) {
    port = await freePort();
    await appendFile(join(dataDir, 'postgresql.conf'), serverSettings(port, socketDir));
    try {
      await pgCtl(binaries, asPostgres, dataDir, ['-l', logFile, 'start']);
      break;
    } catch (error) {
      // Another process may have taken the port between freePort() and the start: try another one.
      if (attempt >= 3) throw new Error(`${(error as Error).message}\n${readLog(logFile)}`);
    }
  }
  return serverHandle({ binaries, asPostgres, dataDir, folder, port });
}

/** Runs `initdb` for a fresh cluster in `dataDir` (which must not exist yet, or be empty). */
async function initdb(
  binaries: Binaries,
  owner: { uid: number; gid: number } | undefined,
  dataDir: string,
): Promise<void> {
  const initArgs = ['-D', dataDir, '-U', USER, '--auth=trust', '-E', 'UTF8', '--locale=C'];
  await runAs(owner !== undefined, binaries.initdb, [
    ...initArgs,
    '--no-sync',
    '--no-instructions',
  ]);
}

/**
 * A fresh cluster in `dataDir`: a copy of the run's `initdb` template when the global setup made a folder for
 * one (postgres-template.ts), else `initdb` itself. `initdb` costs about 1.5 s of CPU, a copy about 0.3 s, and
 * about a dozen test files each start a server.
 */
async function createDataDir(
  binaries: Binaries,
  owner: { uid: number; gid: number } | undefined,
  dataDir: string,
): Promise<void> {
  const templateFolder = process.env[POSTGRES_TEMPLATE_VARIABLE];
  if (templateFolder === undefined) return initdb(binaries, owner, dataDir);
  const template = join(templateFolder, 'data');
  if (!existsSync(template)) await publishTemplate(binaries, owner, templateFolder);
  // `cp -a` keeps the owner (the `postgres` user when we are root) and the 0700 mode PostgreSQL insists on.
  await run('cp', ['-a', template, dataDir]);
}

/** Runs `initdb` in a private folder and renames the result to the template (`<templateFolder>/data`). */
async function publishTemplate(
  binaries: Binaries,
  owner: { uid: number; gid: number } | undefined,
  templateFolder: string,
): Promise<void> {
  const staging = await mkdtemp(join(templateFolder, 'initdb-'));
  try {
    if (owner !== undefined) await chown(staging, owner.uid, owner.gid);
    await initdb(binaries, owner, join(staging, 'data'));
    // Files starting at the same time each run initdb; the first rename wins (a rename onto the published,
    // non-empty folder fails) and the others copy the winner's cluster, the same as theirs.
    await rename(join(staging, 'data'), join(templateFolder, 'data')).catch(() => undefined);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

function readLog(logFile: string): string {
  try {
    return readFileSync(logFile, 'utf8').slice(-2_000);
  } catch {
    return '';
  }
}

async function pgCtl(
  binaries: Binaries,
  asPostgres: boolean,
  dataDir: string,
  args: readonly string[],
): Promise<void> {
  await runAs(asPostgres, binaries.pgCtl, [
    '-D',
    dataDir,
    '-w',
    '-t',
    `${START_TIMEOUT_SECONDS}`,
    ...args,
  ]);
}

/** The postmaster's pid from `postmaster.pid`, if it is running. */
function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8'), 10);
    return Number.isInteger(pid) && processAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this id runs (a zombie waiting for a parent that does not reap it counts as ended). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

interface HandleOptions {
  readonly binaries: Binaries;
  readonly asPostgres: boolean;
  readonly dataDir: string;
  readonly folder: string;
  readonly port: number;
}

function serverHandle(options: HandleOptions): PostgresServer {
  const { binaries, asPostgres, dataDir, folder, port } = options;
  const url = `postgres://${USER}@127.0.0.1:${port}/postgres`;
  let databases = 0;
  let stopped = false;
  return {
    url,
    dataDir,
    pid: () => postmasterPid(dataDir),
    async createDatabase() {
      databases += 1;
      const name = `jarvis_test_${databases}`;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `postgres://${USER}@127.0.0.1:${port}/${name}`;
    },
    async restart() {
      await pgCtl(binaries, asPostgres, dataDir, [
        '-l',
        join(folder, 'log'),
        '-m',
        'fast',
        'restart',
      ]);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      const pid = postmasterPid(dataDir);
      if (pid !== undefined) {
        await pgCtl(binaries, asPostgres, dataDir, ['-m', 'immediate', 'stop']).catch(() => {
          // pg_ctl failed: end the postmaster we started by its own pid.
          if (processAlive(pid)) process.kill(pid, 'SIGQUIT');
        });
      }
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** True when `startPostgres()` could not run a server here. */
export function isSkipped(value: PostgresServer | PostgresSkipped): value is PostgresSkipped {
  return 'skipped' in value;
}

/** What `usePostgres()` gives a test file. */
export interface PostgresFixture {
  /**
   * The file's server; when PostgreSQL cannot run here the test is skipped with the reason (`ctx.skip`), and in
   * CI (`CI` set) it fails instead: CI never skips.
   */
  server(context: { skip: (note?: string) => never }): PostgresServer;
}

/** Starts one server for the calling test file (in `beforeAll`) and stops it in `afterAll`. */
export function usePostgres(): PostgresFixture {
  let started: PostgresServer | PostgresSkipped = { skipped: 'skipped: not started' };
  beforeAll(async () => {
    started = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    if (!isSkipped(started)) await started.stop();
  }, 60_000);
  return {
    server(context) {
      if (!isSkipped(started)) return started;
      if (process.env.CI) throw new Error(`PostgreSQL is required in CI: ${started.skipped}`);
      return context.skip(started.skipped);
    },
  };
}
