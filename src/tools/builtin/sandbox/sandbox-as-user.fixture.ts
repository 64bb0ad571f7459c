// Runs code_interpreter as whatever user started this process (the sandbox tests start it bundled, with an
// ordinary uid), tries the host-global kernel knobs and looks at the sandboxed process from the host side.
// Input: one JSON argument (AsUserRequest); output: one JSON line (AsUserReport) on stdout.
import { readFile } from 'node:fs/promises';
import { CodeInterpreterTool } from './code-interpreter.js';
import {
  HOST_KNOBS,
  type HostIds,
  hostIdsWhile,
  pyodideKnobWrite,
  pyodideNamedWait,
  pythonKnobWrite,
  pythonNamedWait,
  pythonOpenForWrite,
  SYSRQ_TRIGGER,
} from './sandbox-host-knobs.case.test.js';
import { selectSandbox } from './sandbox-select.js';

/** What the test asks for. */
export interface AsUserRequest {
  readonly backend: 'bwrap' | 'pyodide';
  readonly pyodideDir?: string;
  readonly snapshotDir?: string;
  /** The file a core_pattern escape would create. */
  readonly markerPath: string;
}

/** What the fixture saw. */
export interface AsUserReport {
  readonly euid: number;
  readonly selected: string;
  /** The content of each knob snippet's result, by knob name (plus `sysrq-trigger`). */
  readonly knobs: Readonly<Record<string, string>>;
  readonly hostIds: HostIds | undefined;
}

const request = JSON.parse(process.argv[2] ?? '{}') as AsUserRequest;
const selection = await selectSandbox({
  backend: request.backend,
  ...(request.pyodideDir === undefined ? {} : { pyodideDir: request.pyodideDir }),
  ...(request.snapshotDir === undefined ? {} : { pyodideSnapshotDir: request.snapshotDir }),
});
const tool = new CodeInterpreterTool({ sandbox: selection });
const pyodide = request.backend === 'pyodide';
/** Runs `code` and returns what the model would read. */
const contentOf = async (code: string): Promise<string> =>
  (await tool.execute({ code, timeout_seconds: 20 })).content;
const knobs: Record<string, string> = {};
await Promise.all(
  HOST_KNOBS.map(async (knob) => {
    const value = knob.attempt(await readFile(knob.path, 'utf8'), request.markerPath);
    const code = pyodide
      ? pyodideKnobWrite(knob.path, value)
      : pythonKnobWrite(knob.path, value, knob.name === 'kernel.core_pattern');
    knobs[knob.name] = await contentOf(code);
  }),
);
if (!pyodide) knobs['sysrq-trigger'] = await contentOf(pythonOpenForWrite(SYSRQ_TRIGGER));
const marker = `jvs-user-${process.pid % 100_000}`;
const code = pyodide ? pyodideNamedWait(marker) : pythonNamedWait(marker);
const hostIds = await hostIdsWhile(marker, tool.execute({ code, timeout_seconds: 20 }));
const report: AsUserReport = {
  euid: process.geteuid?.() ?? -1,
  selected: selection.ok ? selection.backend.name : selection.reason,
  knobs,
  hostIds,
};
process.stdout.write(`${JSON.stringify(report)}\n`);
