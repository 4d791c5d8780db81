// The corpus of provider answers (test/fixtures/providers, README there names each shape's
// source), loaded for the transform, sync and binary tests.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "../fixtures/providers");

export interface EnableBankingShape {
  provider: "enable_banking";
  shape: string;
  /** The `accounts` of POST /sessions; a default account when absent. */
  session_accounts?: Record<string, unknown>[];
  /** GET /accounts/{uid}/balances; a default balance when absent. */
  balances?: unknown;
  /** Each sync's answer: the pages of GET /accounts/{uid}/transactions. */
  reads: { transactions?: unknown[]; continuation_key?: string | null }[][];
}

export interface SimplefinShape {
  provider: "simplefin";
  shape: string;
  /** Each sync's answer: the account set of GET {access}/accounts. */
  reads: Record<string, unknown>[];
}

function load<T>(dir: string): T[] {
  return readdirSync(join(root, dir))
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(root, dir, name), "utf8")) as T);
}

export const enableBankingShapes = load<EnableBankingShape>("enable-banking");
export const simplefinShapes = load<SimplefinShape>("simplefin");

export function enableBankingShape(name: string): EnableBankingShape {
  const found = enableBankingShapes.find((s) => s.shape === name);
  if (!found) throw new Error(`no Enable Banking fixture ${name}`);
  return found;
}

export function simplefinShape(name: string): SimplefinShape {
  const found = simplefinShapes.find((s) => s.shape === name);
  if (!found) throw new Error(`no SimpleFIN fixture ${name}`);
  return found;
}

/** The session account the Enable Banking shapes use when they name none. */
export const defaultEbAccount = {
  uid: "8f3c1a9e-2b4d-4e6f-9a1b-3c5d7e9f0a12",
  account_id: { iban: "FI2112345600000785" },
  name: "Everyday account",
  cash_account_type: "CACC",
  currency: "EUR",
};

/** The balance the Enable Banking shapes use when they name none. */
export const defaultEbBalances = {
  balances: [
    {
      name: "Booked",
      balance_amount: { currency: "EUR", amount: "100.00" },
      balance_type: "CLBD",
      reference_date: "2026-01-15",
    },
  ],
};

/** The day the fixtures are written around (their dates lie in the days before it). */
const fixtureToday = "2026-01-15";

/**
 * A copy of a fixture with every date moved so that `fixtureToday` becomes `today`: whole-string
 * dates and date-times, and SimpleFIN's Unix times (for tests on the real clock, whose windows
 * end today).
 */
export function movedToDay<T>(value: T, today: string): T {
  const shiftMs = Date.parse(`${today}T00:00:00Z`) - Date.parse(`${fixtureToday}T00:00:00Z`);
  const move = (v: unknown, key?: string): unknown => {
    if (typeof v === "string" && /^\d{4}-\d{2}-\d{2}(T.*)?$/.test(v)) {
      const moved = new Date(Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v) + shiftMs);
      return v.length === 10 ? moved.toISOString().slice(0, 10) : moved.toISOString();
    }
    if (typeof v === "number" && key && ["posted", "transacted_at", "balance-date"].includes(key))
      return v > 0 ? v + shiftMs / 1000 : v;
    if (Array.isArray(v)) return v.map((item) => move(item));
    if (v && typeof v === "object")
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, move(item, k)]));
    return v;
  };
  return move(value) as T;
}
