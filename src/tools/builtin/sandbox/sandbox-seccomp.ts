/** The CPU architectures the seccomp generator knows. */
export type SeccompArch = 'x64' | 'arm64';

interface ArchTable {
  readonly auditArch: number;
  readonly clone: number;
  readonly clone3: number;
  /** Syscalls answered with EPERM. */
  readonly denied: readonly number[];
  /** x86_64 only: reject the x32 ABI (syscall numbers with bit 30 set). */
  readonly rejectX32: boolean;
}

// fork, vfork, socket, socketpair, ptrace, mount, umount2, unshare, setns, keyctl, bpf, userfaultfd,
// perf_event_open, io_uring_setup, kexec_load.
const TABLES: Readonly<Record<SeccompArch, ArchTable>> = {
  x64: {
    auditArch: 0xc000003e,
    clone: 56,
    clone3: 435,
    denied: [57, 58, 41, 53, 101, 165, 166, 272, 308, 250, 321, 323, 298, 425, 246],
    rejectX32: true,
  },
  arm64: {
    auditArch: 0xc00000b7,
    clone: 220,
    clone3: 435,
    denied: [198, 199, 117, 40, 39, 97, 268, 219, 280, 282, 241, 425, 104],
    rejectX32: false,
  },
};

const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;
const RET_KILL_PROCESS = 0x80000000;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const EPERM = 1;
const ENOSYS = 38;
const CLONE_THREAD = 0x00010000;
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0_LOW = 16;

type Insn = readonly [code: number, jt: number, jf: number, k: number];

/** The seccomp architecture of `arch` (a `process.arch` value), or undefined when no filter is known for it. */
export function seccompArchOf(arch: string): SeccompArch | undefined {
  return arch === 'x64' || arch === 'arm64' ? arch : undefined;
}

/**
 * A classic-BPF seccomp program (as raw `struct sock_filter` bytes for `bwrap --seccomp FD`) that forbids new
 * processes (fork, vfork, clone without CLONE_THREAD), sockets and namespace/kernel-attack syscalls, and allows threads.
 */
export function buildSeccompFilter(arch: SeccompArch): Uint8Array {
  const table = TABLES[arch];
  const program: Insn[] = [
    [LD_W_ABS, 0, 0, OFFSET_ARCH],
    [JEQ_K, 1, 0, table.auditArch],
    [RET_K, 0, 0, RET_KILL_PROCESS],
    [LD_W_ABS, 0, 0, OFFSET_NR],
  ];
  if (table.rejectX32) program.push([JGE_K, 0, 1, 0x40000000], [RET_K, 0, 0, RET_KILL_PROCESS]);
  for (const nr of table.denied) program.push([JEQ_K, 0, 1, nr], [RET_K, 0, 0, RET_ERRNO | EPERM]);
  // clone3 passes its flags in memory BPF cannot read: answer ENOSYS so libc falls back to clone(2).
  program.push([JEQ_K, 0, 1, table.clone3], [RET_K, 0, 0, RET_ERRNO | ENOSYS]);
  program.push(
    [JEQ_K, 0, 3, table.clone],
    [LD_W_ABS, 0, 0, OFFSET_ARG0_LOW],
    [JSET_K, 1, 0, CLONE_THREAD],
    [RET_K, 0, 0, RET_ERRNO | EPERM],
    [RET_K, 0, 0, RET_ALLOW],
  );
  return encode(program);
}

/** Serialises instructions as little-endian `struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }`. */
function encode(program: readonly Insn[]): Uint8Array {
  const bytes = new Uint8Array(program.length * 8);
  const view = new DataView(bytes.buffer);
  program.forEach(([code, jt, jf, k], index) => {
    const at = index * 8;
    view.setUint16(at, code, true);
    view.setUint8(at + 2, jt);
    view.setUint8(at + 3, jf);
    view.setUint32(at + 4, k >>> 0, true);
  });
  return bytes;
}
