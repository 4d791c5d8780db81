// SQLite's own locks as the kernel sees them (/proc/locks), to prove that nothing in the process
// drops them behind SQLite's back.
import { readFileSync, statSync } from "node:fs";

/**
 * Whether `pid` holds SQLite's shared "DMS" lock on the WAL-index of `databasePath`: a read lock
 * on byte 128 of the -shm file, held by every open connection (os_unix.c, UNIX_SHM_DMS). A
 * process without it looks absent to others, who may then rebuild the -shm file under it.
 */
export function holdsShmLock(pid: number, databasePath: string): boolean {
  const shmInode = statSync(`${databasePath}-shm`).ino;
  for (const line of readFileSync("/proc/locks", "utf8").split("\n")) {
    const fields = line.trim().split(/\s+/);
    // "1: POSIX  ADVISORY  READ 1234 08:02:131090 128 128" (a "->" marks a blocked waiter)
    if (fields[1] === "->") continue;
    const [, kind, , mode, owner, device, start, end] = fields;
    if (kind !== "POSIX" || Number(owner) !== pid) continue;
    if (Number(device?.split(":")[2]) !== shmInode) continue;
    if (mode === "READ" && start === "128" && end === "128") return true;
  }
  return false;
}
