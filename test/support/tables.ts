// The tables of this run's engine (support/engine.ts), for tests that read or write rows
// directly. Feature code takes them from `db.t`; every handle of one engine has the same ones.

import * as postgresTables from "../../src/db/schema/postgres.ts";
import * as sqliteTables from "../../src/db/schema/sqlite.ts";
import type { Tables } from "../../src/db/schema.ts";
import { testEngine } from "./engine.ts";

export const tables = (testEngine === "postgres"
  ? postgresTables
  : sqliteTables) as unknown as Tables;
