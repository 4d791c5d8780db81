// Where a benchmark keeps its data: a fresh SQLite file in a temporary directory (the default),
// or, given `--database-url` naming a PostgreSQL server, a fresh database created on that server
// for the run and dropped when it ends. Either way nothing of the operator's is touched.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";

export interface BenchDatabase {
  dataDir: string;
  /** The run's own PostgreSQL database, when the bench runs on PostgreSQL. */
  databaseUrl?: string;
  engine: "sqlite" | "postgres";
  /** Removes the directory and drops the database (idempotent). */
  dispose(): Promise<void>;
}

export async function openBenchDatabase(serverUrl: string | undefined): Promise<BenchDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-bench-"));
  const removeDir = () => rmSync(dataDir, { recursive: true, force: true });
  if (!serverUrl) {
    return { dataDir, engine: "sqlite", dispose: async () => removeDir() };
  }
  const name = `svc_bench_${process.pid}_${Date.now().toString(36)}`;
  const admin = new SQL({ url: serverUrl, max: 1 });
  await admin.unsafe(`CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let disposed = false;
  return {
    dataDir,
    databaseUrl: url.toString(),
    engine: "postgres",
    async dispose() {
      if (disposed) return;
      disposed = true;
      removeDir();
      await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.close();
    },
  };
}
