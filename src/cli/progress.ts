// Progress of long work on a terminal: one line rewritten in place on stderr, at most ten times a
// second; without a terminal (scripts, CI, logs) nothing is written.
import type { CliIo } from "./io.ts";

export interface Progress {
  update(text: string): void;
  /** Clears the line (call once the work is over, also after a failure). */
  done(): void;
}

const intervalMs = 100;

export function createProgress(io: Pick<CliIo, "interactive" | "stderr">): Progress {
  if (!io.interactive) return { update() {}, done() {} };
  let last = 0;
  let shown = false;
  return {
    update(text) {
      const now = performance.now();
      if (now - last < intervalMs) return;
      last = now;
      shown = true;
      io.stderr(`\r\x1b[2K${text}`);
    },
    done() {
      if (shown) io.stderr("\r\x1b[2K");
    },
  };
}
