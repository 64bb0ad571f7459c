import { describe, expect, it } from 'vitest';
import { buildSeccompFilter, type SeccompArch, seccompArchOf } from './sandbox-seccomp.js';

const ALLOW = 0x7fff0000;
const KILL = 0x80000000;
const EPERM = 0x00050001;
const ENOSYS = 0x00050026;
const CLONE_THREAD_FLAGS = 0x3d0f00;
const FORK_FLAGS = 0x01200011;

/** A classic-BPF interpreter for the instructions the generator emits, over one `seccomp_data`. */
function evaluate(program: Uint8Array, data: { nr: number; arch: number; arg0: number }): number {
  const view = new DataView(program.buffer, program.byteOffset, program.byteLength);
  const load = (offset: number): number =>
    offset === 0
      ? data.nr
      : offset === 4
        ? data.arch
        : offset === 16
          ? data.arg0 >>> 0
          : Number.NaN;
  let acc = 0;
  for (let pc = 0; pc * 8 < program.length; pc += 1) {
    const code = view.getUint16(pc * 8, true);
    const jt = view.getUint8(pc * 8 + 2);
    const jf = view.getUint8(pc * 8 + 3);
    const k = view.getUint32(pc * 8 + 4, true);
    if (code === 0x20) acc = load(k);
    else if (code === 0x06) return k;
    else if (code === 0x15) pc += acc === k ? jt : jf;
    else if (code === 0x35) pc += acc >= k ? jt : jf;
    else if (code === 0x45) pc += (acc & k) !== 0 ? jt : jf;
    else throw new Error(`unexpected opcode ${code}`);
  }
  throw new Error('fell off the end of the program');
}

const CASES: Readonly<
  Record<SeccompArch, { arch: number; clone: number; fork?: number; socket: number; read: number }>
> = {
  x64: { arch: 0xc000003e, clone: 56, fork: 57, socket: 41, read: 0 },
  arm64: { arch: 0xc00000b7, clone: 220, socket: 198, read: 63 },
};

describe('buildSeccompFilter', () => {
  for (const [name, nums] of Object.entries(CASES) as [SeccompArch, (typeof CASES)['x64']][]) {
    const program = buildSeccompFilter(name);
    const run = (nr: number, arg0 = 0, arch = nums.arch) => evaluate(program, { nr, arch, arg0 });

    it(`${name}: allows ordinary syscalls and threads`, () => {
      expect(program.length % 8).toBe(0);
      expect(run(nums.read)).toBe(ALLOW);
      expect(run(nums.clone, CLONE_THREAD_FLAGS)).toBe(ALLOW);
    });

    it(`${name}: denies new processes, sockets and clone3`, () => {
      expect(run(nums.clone, FORK_FLAGS)).toBe(EPERM);
      expect(run(nums.clone, 17)).toBe(EPERM);
      if (nums.fork !== undefined) expect(run(nums.fork)).toBe(EPERM);
      expect(run(nums.socket)).toBe(EPERM);
      expect(run(435)).toBe(ENOSYS);
    });

    it(`${name}: kills a foreign architecture`, () => {
      expect(run(nums.read, 0, 0x40000003)).toBe(KILL);
    });
  }

  it('x64: kills x32-ABI syscalls', () => {
    expect(
      evaluate(buildSeccompFilter('x64'), { nr: 0x40000000 + 57, arch: 0xc000003e, arg0: 0 }),
    ).toBe(KILL);
  });

  it('knows x64 and arm64 only', () => {
    expect(seccompArchOf('x64')).toBe('x64');
    expect(seccompArchOf('arm64')).toBe('arm64');
    expect(seccompArchOf('ia32')).toBeUndefined();
  });
});
