// Online backup, the master key included (docs/operator-guide.md "Backup and restore"). The target
// is a directory that is itself a data dir: restore by pointing --data-dir at it. Owner-only modes
// (0700, files 0600) and a check of what was written: the snapshot read back by its engine and the
// master key matched against the snapshot's check value.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Config, configFileName } from "../config/config.ts";
import { ApiError } from "../core/errors.ts";
import { type MasterKey, masterKeyFileName } from "../crypto/master-key.ts";
import { type AnyDatabase, databaseFileName } from "../db/open.ts";
import { postgresRestoreSteps } from "./restore-steps.ts";
import {
  type BackupCheck,
  backupDirectoryMode,
  backupFileMode,
  checkBackup,
  postgresDumpFileName,
} from "./verify.ts";

export interface BackupResult {
  directory: string;
  /** The database snapshot: svc.db (SQLite), or svc.pgdump (PostgreSQL, pg_dump's custom format). */
  databaseFile: string;
  databaseBytes: number;
  masterKeyIncluded: boolean;
  configIncluded: boolean;
  /** The check of what was written (integrity and master key); a backup with problems throws. */
  check: Pick<BackupCheck, "integrity" | "masterKey">;
  /** What the operator must keep beside the backup, when something is not inside it. */
  warnings: string[];
  /** How to start from this backup, in order. */
  restoreSteps: string[];
}

/**
 * PostgreSQL's own tool takes the snapshot (consistent while instances keep running). The
 * password travels in PGPASSWORD, never on the command line where `ps` would show it.
 */
async function dumpPostgres(databaseUrl: string, file: string): Promise<void> {
  const pgDump = Bun.which("pg_dump");
  if (!pgDump) {
    throw new ApiError(
      "invalid_state",
      "This instance keeps its data in PostgreSQL, which svc cannot copy by itself: install pg_dump (Debian: apt-get install postgresql-client) and run svc backup again, or back the database up with your usual PostgreSQL tooling (pg_dump, or your provider's snapshots). docs/operator-guide.md, PostgreSQL, explains.",
    );
  }
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = "";
  const child = Bun.spawn(
    [pgDump, "--format=custom", "--no-owner", `--file=${file}`, `--dbname=${url.toString()}`],
    {
      env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) },
      stdout: "ignore",
      stderr: "pipe",
    },
  );
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  if (code !== 0) {
    throw new ApiError(
      "invalid_state",
      `pg_dump failed (exit ${code}): ${stderr.trim().split("\n").slice(-3).join(" ")}`,
    );
  }
}

/** What a backup reads: the database through its engine, the master key and the config's files. */
export interface BackupDeps {
  config: Pick<Config, "dataDir" | "databaseUrl" | "configFile">;
  database: AnyDatabase;
  masterKey: MasterKey;
}

export async function backupInstance(
  deps: BackupDeps,
  target: string,
  options: { onProgress?: (step: string) => void } = {},
): Promise<BackupResult> {
  const directory = resolve(target);
  if (directory === resolve(deps.config.dataDir)) {
    throw new ApiError("invalid_request", "the backup directory must not be the data dir itself");
  }
  if (existsSync(directory)) {
    if (!statSync(directory).isDirectory() || readdirSync(directory).length > 0) {
      throw new ApiError("conflict", `${directory} already exists and is not an empty directory`);
    }
  }
  mkdirSync(directory, { recursive: true, mode: backupDirectoryMode });
  // mkdir's mode is narrowed by the umask and an existing empty directory keeps its own: set it.
  chmodSync(directory, backupDirectoryMode);
  const { database } = deps;
  let databaseFile: string;
  options.onProgress?.(`writing the database snapshot (${database.engine})`);
  if (database.engine === "sqlite") {
    databaseFile = join(directory, databaseFileName);
    // VACUUM INTO writes a consistent snapshot through SQLite while the server keeps running.
    database.reader.query("VACUUM INTO ?").run(databaseFile);
  } else {
    databaseFile = join(directory, postgresDumpFileName);
    await dumpPostgres(deps.config.databaseUrl as string, databaseFile);
  }

  const warnings: string[] = [];
  const { masterKey, config } = deps;
  options.onProgress?.("copying the master key and config");
  let masterKeyIncluded = false;
  if (masterKey.source === "file" && masterKey.path) {
    copyFileSync(masterKey.path, join(directory, masterKeyFileName));
    masterKeyIncluded = true;
  } else {
    warnings.push(
      "The master key is not in this backup: it comes from SVC_MASTER_KEY. Keep that value with the backup; without it no webhook signing secret can be recovered.",
    );
  }
  const configFile = join(config.dataDir, configFileName);
  const configIncluded = existsSync(configFile);
  if (configIncluded) copyFileSync(configFile, join(directory, configFileName));
  if (config.configFile && config.configFile !== configFile) {
    warnings.push(
      `The config file ${config.configFile} lives outside the data dir and was not copied.`,
    );
  }
  for (const name of readdirSync(directory)) chmodSync(join(directory, name), backupFileMode);

  options.onProgress?.("checking the backup");
  const check = await checkBackup(directory, { masterKey });
  if (check.problems.length > 0) {
    throw new ApiError(
      "invalid_state",
      `The backup in ${directory} failed its check: ${check.problems.join("; ")}. Do not rely on it.`,
    );
  }
  return {
    directory,
    databaseFile,
    databaseBytes: statSync(databaseFile).size,
    masterKeyIncluded,
    configIncluded,
    check: { integrity: check.integrity, masterKey: check.masterKey },
    warnings,
    restoreSteps:
      database.engine === "sqlite"
        ? [`svc serve --data-dir ${directory}`]
        : postgresRestoreSteps(directory),
  };
}
