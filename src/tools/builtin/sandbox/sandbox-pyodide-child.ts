/**
 * The Python side of a Pyodide run: compiles the code as `<stdin>` (top-level `await` allowed) into a fresh
 * `__main__` module and returns the exit status CPython would give: 0, SystemExit's code, or 1 with the
 * traceback on stderr (the driver's own frame left out).
 */
const PYTHON_MAIN = `
import ast, builtins, inspect, sys, traceback, types

async def _jarvis_main(source):
    try:
        module = types.ModuleType('__main__')
        module.__builtins__ = builtins
        sys.modules['__main__'] = module
        code = compile(source, '<stdin>', 'exec', flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
        result = eval(code, module.__dict__)
        if inspect.iscoroutine(result):
            await result
        return 0
    except SystemExit as error:
        if error.code is None:
            return 0
        if isinstance(error.code, int):
            return error.code % 256
        print(error.code, file=sys.stderr)
        return 1
    except BaseException as error:
        traceback.print_exception(type(error), error, error.__traceback__.tb_next)
        return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()

_jarvis_main
`;

/**
 * The JavaScript the child Node process runs (`node --input-type=module -e <source> <mode> <pyodideDir>
 * <snapshotPath>`), inside bubblewrap and under Node's permission model. Mode `snapshot` boots Pyodide once and
 * writes a memory snapshot to stdout as base64; mode `run` boots from the snapshot (skipping its
 * `snapshotHeaderBytes`-byte header), reads the code from stdin, runs it with Python's stdout/stderr on its own
 * and exits with Python's exit status (70 when Pyodide itself could not start).
 */
const CHILD_BODY = String.raw`
import { constants, readFileSync, writeSync } from 'node:fs';

const [mode, pyodideDir, snapshotPath, headerBytes] = process.argv.slice(1);

function writeAll(fd, bytes) {
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset);
    } catch (error) {
      if (error.code !== 'EAGAIN') throw error;
    }
  }
  return bytes.length;
}

function fail(message) {
  writeAll(2, Buffer.from('Pyodide sandbox: ' + String(message).slice(0, 2000) + '\n'));
  process.exit(70);
}

process.on('uncaughtException', (error) => {
  writeAll(2, Buffer.from('Uncaught JavaScript error: ' + String(error && error.message || error).slice(0, 2000) + '\n'));
  process.exit(1);
});

async function boot(snapshot) {
  const binding = process.binding;
  // NODEFS reads fs constants through process.binding at start-up, which the permission model forbids.
  process.binding = (name) => (name === 'constants' ? { fs: constants } : binding.call(process, name));
  try {
    const { loadPyodide } = await import('file://' + pyodideDir + '/pyodide.mjs');
    return await loadPyodide(snapshot === undefined ? { _makeSnapshot: true } : { _loadSnapshot: snapshot });
  } finally {
    process.binding = binding;
  }
}

async function makeSnapshot() {
  const pyodide = await boot(undefined);
  writeAll(1, Buffer.from(Buffer.from(pyodide.makeMemorySnapshot()).toString('base64')));
  process.exit(0);
}

async function run() {
  const code = readFileSync(0, 'utf8');
  const pyodide = await boot(readFileSync(snapshotPath).subarray(Number(headerBytes)));
  pyodide.setStdout({ write: (bytes) => writeAll(1, bytes) });
  pyodide.setStderr({ write: (bytes) => writeAll(2, bytes) });
  pyodide.setStdin({ stdin: () => undefined });
  const main = pyodide.runPython(PYTHON_MAIN);
  let status;
  try {
    status = await main(code);
  } catch (error) {
    writeAll(2, Buffer.from(String(error && error.message || error).slice(0, 4000) + '\n'));
    status = 1;
  }
  process.exit(status);
}

(mode === 'snapshot' ? makeSnapshot() : run()).catch((error) => fail(error && error.message || error));
`;

/** The child program's source, with the Python driver inlined as a string literal. */
export const PYODIDE_CHILD_SOURCE = `const PYTHON_MAIN = ${JSON.stringify(PYTHON_MAIN)};\n${CHILD_BODY}`;
