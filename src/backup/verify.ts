// Checks a backup written by `svc backup`: run by the backup itself on
// what it just wrote, and by `svc backup --verify DIR` on an existing one. Everything is read
// through the engine's own tools: SQLite opens the copy read-only and runs
// `PRAGMA integrity_check`; a PostgreSQL dump is read by `pg_restore`. Nothing of a live
// database is touched.
import { Database } from "bun:sqlite";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { type MasterKey, masterKeyFileName, parseMasterKey } from "../crypto/master-key.ts";
import { masterKeyCheckMetaKey, masterKeyCheckValue } from "../crypto/master-key-check.ts";
import { constantTimeEqual } from "../crypto/tokens.ts";
import { databaseFileName } from "../db/open.ts";

/** pg_dump's output file in a backup of a PostgreSQL instance (restore with pg_restore). */
export const postgresDumpFileName = "svc.pgdump";

/** Backups hold the master key and every secret's material: owner only (docs/security.md). */
export const backupDirectoryMode = 0o700;
export const backupFileMode = 0o600;

export interface BackupCheck {
  directory: string;
  /** svc.db or svc.pgdump, when one was found. */
  databaseFile: string | null;
  engine: "sqlite" | "postgres" | null;
  /** "ok" when the engine found the snapshot sound, else what it said. */
  integrity: string;
  /** Whether the master key (the backup's master.key, else SVC_MASTER_KEY) matches the snapshot's check value. */
  masterKey: "matches" | "does not match" | "missing" | "no check value in the database";
  /** Everything that makes the backup unfit to restore from, or unsafe to keep; empty when fine. */
  problems: string[];
}

function modeProblems(directory: string): string[] {
  const problems: string[] = [];
  const dirMode = statSync(directory).mode & 0o777;
  if (dirMode & 0o077) {
    problems.push(
      `${directory} has mode ${dirMode.toString(8)}; a backup directory must be ${backupDirectoryMode.toString(8)} (owner only): chmod 700 it`,
    );
  }
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    const stat = statSync(path);
    if (!stat.isFile()) continue;
    const mode = stat.mode & 0o777;
    if (mode & 0o077) {
      problems.push(
        `${path} has mode ${mode.toString(8)}; backup files must be ${backupFileMode.toString(8)} (owner only): chmod 600 it`,
      );
    }
  }
  return problems;
}

/** SQLite's own check of the copy, opened read-only; and the master key's check value in it. */
function checkSqlite(file: string): { integrity: string; storedCheck: string | undefined } {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.query("PRAGMA integrity_check").all() as { integrity_check: string }[];
    const integrity = rows.map((row) => row.integrity_check).join("; ");
    if (integrity !== "ok") return { integrity, storedCheck: undefined };
    const row = db
      .query("SELECT value FROM instance_meta WHERE key = ?")
      .get(masterKeyCheckMetaKey) as { value: string } | null;
    return { integrity, storedCheck: row?.value };
  } catch (error) {
    return { integrity: (error as Error).message, storedCheck: undefined };
  } finally {
    db.close();
  }
}

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}

/** pg_restore reads the whole archive (its table of contents, then instance_meta's rows). */
async function checkPostgresDump(
  file: string,
): Promise<{ integrity: string; storedCheck: string | undefined }> {
  const pgRestore = Bun.which("pg_restore");
  if (!pgRestore) {
    return {
      integrity:
        "pg_restore is not installed, so svc.pgdump cannot be read (Debian: apt-get install postgresql-client)",
      storedCheck: undefined,
    };
  }
  const list = await run([pgRestore, "--list", file]);
  if (list.code !== 0) {
    return {
      integrity: `pg_restore cannot read it: ${list.stderr.trim()}`,
      storedCheck: undefined,
    };
  }
  const data = await run([pgRestore, "--data-only", "--table=instance_meta", "--file=-", file]);
  if (data.code !== 0) {
    return {
      integrity: `pg_restore cannot read it: ${data.stderr.trim()}`,
      storedCheck: undefined,
    };
  }
  // COPY ... FROM stdin rows: key <TAB> value <TAB> updated_at.
  const row = data.stdout
    .split("\n")
    .map((line) => line.split("\t"))
    .find((fields) => fields[0] === masterKeyCheckMetaKey);
  return { integrity: "ok", storedCheck: row?.[1] };
}

/**
 * Checks the backup in `directory`. The master key is the backup's own master.key, else
 * `masterKey` (SVC_MASTER_KEY, which backups never hold).
 */
export async function checkBackup(
  directory: string,
  options: { masterKey?: MasterKey } = {},
): Promise<BackupCheck> {
  const dir = resolve(directory);
  const check: BackupCheck = {
    directory: dir,
    databaseFile: null,
    engine: null,
    integrity: "not checked",
    masterKey: "missing",
    problems: [],
  };
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    check.problems.push(`${dir} is not a directory`);
    return check;
  }
  check.problems.push(...modeProblems(dir));

  const sqliteFile = join(dir, databaseFileName);
  const dumpFile = join(dir, postgresDumpFileName);
  let storedCheck: string | undefined;
  if (existsSync(sqliteFile)) {
    check.databaseFile = sqliteFile;
    check.engine = "sqlite";
    ({ integrity: check.integrity, storedCheck } = checkSqlite(sqliteFile));
  } else if (existsSync(dumpFile)) {
    check.databaseFile = dumpFile;
    check.engine = "postgres";
    ({ integrity: check.integrity, storedCheck } = await checkPostgresDump(dumpFile));
  } else {
    check.problems.push(`no database snapshot (${databaseFileName} or ${postgresDumpFileName})`);
    return check;
  }
  if (check.integrity !== "ok") {
    check.problems.push(`the database snapshot is damaged: ${check.integrity}`);
    return check;
  }

  const keyFile = join(dir, masterKeyFileName);
  let key: MasterKey | undefined = options.masterKey;
  if (existsSync(keyFile)) {
    try {
      key = { bytes: parseMasterKey(readFileSync(keyFile, "utf8"), keyFile), source: "file" };
    } catch (error) {
      check.problems.push((error as Error).message);
      return check;
    }
  }
  if (!key) {
    check.problems.push(
      `no master key: ${masterKeyFileName} is not in the backup and SVC_MASTER_KEY is not set. Without the key no webhook signing secret can be recovered.`,
    );
    return check;
  }
  if (storedCheck === undefined) {
    check.masterKey = "no check value in the database";
    check.problems.push(
      "the database holds no master key check value, so the key cannot be matched to it",
    );
    return check;
  }
  const matches = constantTimeEqual(storedCheck, masterKeyCheckValue(key));
  check.masterKey = matches ? "matches" : "does not match";
  if (!matches) {
    check.problems.push(
      `the master key (${existsSync(keyFile) ? keyFile : "SVC_MASTER_KEY"}) is not the one this database's secrets were made with`,
    );
  }
  return check;
}
