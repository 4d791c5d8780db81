// The calling thread's own CPU time (Linux: clock_gettime(CLOCK_THREAD_CPUTIME_ID) through
// bun:ffi), for benches on a shared machine: wall time there includes every moment the thread
// waited for a core while other processes ran, CPU time does not. NaN where it is unavailable.
import { dlopen, FFIType, ptr } from "bun:ffi";

const clockThreadCpuTimeId = 3;
let read: () => number = () => Number.NaN;
if (process.platform === "linux") {
  try {
    const libc = dlopen("libc.so.6", {
      clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
    });
    const timespec = new BigInt64Array(2);
    const at = ptr(timespec);
    read = () => {
      libc.symbols.clock_gettime(clockThreadCpuTimeId, at);
      return Number(timespec[0]) * 1e6 + Number(timespec[1]) / 1e3;
    };
  } catch {
    // No libc by that name: CPU time stays unknown.
  }
}

/** Microseconds of CPU this thread has used (only differences mean anything). */
export function threadCpuMicros(): number {
  return read();
}
