// Online backup (DESIGN.md: backups must include the master key). The target is a directory
// that is itself a data dir: restore by pointing --data-dir at it.
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { configFileName } from "../config.ts";
import { masterKeyFileName } from "../crypto/master-key.ts";
import { databaseFileName } from "../db/open.ts";
import { ApiError } from "../http/errors.ts";
import type { Services } from "../services.ts";

export interface BackupResult {
  directory: string;
  databaseFile: string;
  databaseBytes: number;
  masterKeyIncluded: boolean;
  configIncluded: boolean;
  /** What the operator must keep beside the backup, when something is not inside it. */
  warnings: string[];
}

export function backupInstance(services: Services, target: string): BackupResult {
  const directory = resolve(target);
  if (directory === resolve(services.config.dataDir)) {
    throw new ApiError("invalid_request", "the backup directory must not be the data dir itself");
  }
  if (existsSync(directory)) {
    if (!statSync(directory).isDirectory() || readdirSync(directory).length > 0) {
      throw new ApiError("conflict", `${directory} already exists and is not an empty directory`);
    }
  }
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const databaseFile = join(directory, databaseFileName);
  // VACUUM INTO writes a consistent snapshot while the server keeps running (WAL readers).
  services.database.sqlite.query("VACUUM INTO ?").run(databaseFile);

  const warnings: string[] = [];
  const { masterKey, config } = services;
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
  return {
    directory,
    databaseFile,
    databaseBytes: statSync(databaseFile).size,
    masterKeyIncluded,
    configIncluded,
    warnings,
  };
}
