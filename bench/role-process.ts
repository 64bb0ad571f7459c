// Benchmarks that measure each side in a process of its own fork their own module in a role (a command-line flag
// naming what the process does), wait for its first message (its URL, or whether it could set itself up), then
// send it commands one at a time over IPC and read the replies. A side measured in a process of its own pays
// for no other side's garbage, type feedback, JIT compiles or loaded code.
import { type ChildProcess, fork } from 'node:child_process';

/** A process forked in a role: its first message, and commands answered one at a time. */
export interface RoleProcess<First> {
  readonly child: ChildProcess;
  /** The first message the process sent once it was set up. */
  readonly first: First;
  /** Sends a command and resolves with the reply (each reply answers the oldest command waiting). */
  command<T>(command: unknown): Promise<T>;
  /** Disconnects the IPC channel; a role process ends itself when its parent disconnects. */
  close(): void;
}

/** Options of `forkRole`. */
export interface ForkRoleOptions {
  /** Node options of the process (default: this process's own, so a TypeScript module runs under the same loader). */
  readonly execArgv?: readonly string[];
  /** What error messages call the process (default: its flag). */
  readonly name?: string;
}

/** Forks `module` with `[flag, ...args]`; resolves once it has sent its first message. */
export async function forkRole<First>(
  module: string | URL,
  flag: string,
  args: readonly string[],
  options: ForkRoleOptions = {},
): Promise<RoleProcess<First>> {
  const child = fork(module, [flag, ...args], {
    execArgv: [...(options.execArgv ?? process.execArgv)],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const name = options.name ?? flag;
  const first = await new Promise<First>((resolve, reject) => {
    child.once('message', (message) => resolve(message as First));
    child.once('exit', (code) => reject(new Error(`the ${name} process exited early (${code})`)));
  });
  const waiting: { resolve: (value: unknown) => void; reject: (error: Error) => void }[] = [];
  child.on('message', (message: { reply?: unknown; error?: string }) => {
    const next = waiting.shift();
    if (message.error !== undefined) next?.reject(new Error(`${name} process: ${message.error}`));
    else next?.resolve(message.reply);
  });
  child.on('exit', (code) => {
    for (const next of waiting.splice(0))
      next.reject(new Error(`the ${name} process exited (${code}) before replying`));
  });
  return {
    child,
    first,
    command: <T>(command: unknown) =>
      new Promise<T>((resolve, reject) => {
        waiting.push({ resolve: resolve as (value: unknown) => void, reject });
        child.send(command as object);
      }),
    close: () => {
      if (child.connected) child.disconnect();
    },
  };
}

/** In a role process: answers each command from the parent with `handle`'s result, or its error. */
export function answerCommands<Command>(handle: (command: Command) => Promise<unknown>): void {
  process.on('message', (message: Command) => {
    void handle(message).then(
      (reply) => process.send?.({ reply }),
      (error: unknown) => process.send?.({ error: String(error) }),
    );
  });
}

/** In a role process: runs `close` and exits when the parent disconnects (or ends). */
export function endWithParent(close: () => unknown = () => undefined): void {
  process.on('disconnect', () => {
    void Promise.resolve()
      .then(close)
      .finally(() => process.exit(0));
  });
}
