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
