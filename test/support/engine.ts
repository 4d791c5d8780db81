// Which storage engine the test run uses: one switch, SVC_TEST_ENGINE=postgres (default sqlite).
// On PostgreSQL each suite (each createTestServices, each e2e data dir) gets a database of its
// own, created here and dropped when it is closed. Where the server comes from:
// SVC_TEST_POSTGRES_URL when set; else the URL scripts/ensure-test-deps.sh wrote into
// .test-postgres-url (a throwaway cluster it started); else 127.0.0.1:5432 with user postgres
// (the test machines run one). When none answers the run fails: PostgreSQL tests are never
// skipped silently.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import { type AnyDatabase, type DatabaseSettings, openDatabase } from "../../src/db/open.ts";
import { makeTempDir } from "./temp.ts";

export type TestEngine = "sqlite" | "postgres";

/**
 * Suites leave many stores open until the process ends; small pools whose idle connections
 * close within a second keep the whole run under the server's connection limit.
 */
export const testPoolOptions = { poolSize: 3, idleTimeoutSeconds: 1 };

export const testEngine: TestEngine =
  process.env.SVC_TEST_ENGINE === "postgres" ? "postgres" : "sqlite";

const repoRoot = join(import.meta.dir, "../..");
const defaultServerUrl = "postgres://postgres@127.0.0.1:5432/test";
const databasePrefix = "svc_test_";

/** The URL of the PostgreSQL server the tests use (its maintenance database). */
function testPostgresServerUrl(): string {
  const fromEnv = process.env.SVC_TEST_POSTGRES_URL;
  if (fromEnv) return fromEnv;
  const file = join(repoRoot, ".test-postgres-url");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  return defaultServerUrl;
}

let admin: SQL | undefined;
let sweep: Promise<void> | undefined;
let created = 0;

function adminClient(): SQL {
  admin ??= new SQL({ url: testPostgresServerUrl(), max: 2, idleTimeout: 5 });
  return admin;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Drops the databases of test processes that died before they could drop their own. */
async function sweepLeftovers(client: SQL): Promise<void> {
  const rows: { datname: string }[] = await client`
    SELECT datname FROM pg_database WHERE datname LIKE ${`${databasePrefix}%`}`;
  for (const { datname } of rows) {
    const pid = Number(datname.slice(databasePrefix.length).split("_")[0]);
    if (Number.isInteger(pid) && pid !== process.pid && !alive(pid)) {
      await client.unsafe(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  }
}

export interface TestDatabase {
  url: string;
}

/** Every database this process created: dropped when the run ends (test/setup.ts). */
const createdDatabases: string[] = [];

/** Drops this run's databases and closes the admin connection; called once, after all tests. */
export async function dropTestDatabases(): Promise<void> {
  if (!admin) return;
  for (const name of createdDatabases.splice(0)) {
    await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
  }
  await admin.close();
  admin = undefined;
}

/**
 * A new, empty PostgreSQL database for one suite. It outlives the suite's stores (a test may
 * reopen it, as a restarted process would) and is dropped when the run ends.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const client = adminClient();
  try {
    sweep ??= sweepLeftovers(client);
    await sweep;
  } catch (error) {
    throw new Error(
      `the PostgreSQL tests need a server: none answered at ${testPostgresServerUrl().replace(/:[^:@/]*@/, ":***@")} (set SVC_TEST_POSTGRES_URL, or run scripts/ensure-test-deps.sh): ${error}`,
    );
  }
  const name = `${databasePrefix}${process.pid}_${++created}_${Date.now().toString(36)}`;
  await client.unsafe(`CREATE DATABASE "${name}"`);
  createdDatabases.push(name);
  const url = new URL(testPostgresServerUrl());
  url.pathname = `/${name}`;
  return { url: url.toString() };
}

/**
 * What a compiled binary or CLI run needs in its environment to use this run's engine: nothing
 * on SQLite (the data dir), a fresh database's URL on PostgreSQL.
 */
async function engineEnv(): Promise<Record<string, string>> {
  if (testEngine === "sqlite") return {};
  return { SVC_DATABASE_URL: (await createTestDatabase()).url };
}

const envByDirectory = new Map<string, Promise<Record<string, string>>>();

/** Records the database of a data dir made elsewhere (createTestServices), for CLI runs in it. */
export function registerEngineEnv(cwd: string, env: Record<string, string>): void {
  envByDirectory.set(cwd, Promise.resolve(env));
}

/**
 * The engine environment of the instance that lives in `cwd` (its data dir is `cwd/data`): every
 * CLI run and server started there shares one database, as on an operator's machine.
 */
export function engineEnvFor(cwd: string): Promise<Record<string, string>> {
  let env = envByDirectory.get(cwd);
  if (!env) {
    env = engineEnv();
    envByDirectory.set(cwd, env);
  }
  return env;
}

/**
 * A fresh, empty (not migrated) database of this run's engine, on its own data dir. `settings`
 * opens more stores on the same data (another process, another instance).
 */
export async function openTestDatabase(): Promise<{
  database: AnyDatabase;
  settings: DatabaseSettings;
}> {
  // A directory the store creates itself (its mode is part of what is tested).
  const dataDir = join(makeTempDir("svc-db"), "data");
  if (testEngine === "sqlite") {
    const settings = { dataDir };
    return { database: openDatabase(settings, testPoolOptions), settings };
  }
  const created = await createTestDatabase();
  const settings = { dataDir, databaseUrl: created.url };
  return { database: openDatabase(settings, testPoolOptions), settings };
}
