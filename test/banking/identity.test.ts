// The identity rule for real banks' rows (src/banking/identity.ts, docs/providers.md "One
// transaction, one id"), as examples and as properties over any answer and any renaming of its
// provider ids.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  fingerprint,
  type IncomingRow,
  isPlaceholderId,
  matchRows,
  pendingReplaced,
  type StoredRow,
  uniqueProviderIds,
} from "../../src/banking/identity.ts";

const row = (over: Partial<IncomingRow> = {}): IncomingRow => ({
  providerId: null,
  status: "booked",
  amount: "-4.50",
  currency: "EUR",
  bookingDate: "2026-01-14",
  description: "Card purchase Cafe Aalto",
  counterpartyName: "Cafe Aalto",
  ...over,
});

/** Stores an answer as the sync would on a first read: every row new, seen under its unique id. */
function storeAll(rows: IncomingRow[]) {
  const unique = uniqueProviderIds(rows);
  const stored: StoredRow[] = rows.map((r, i) => ({
    ...r,
    id: `row-${i}`,
    bookedTransactionId: null,
    removedAt: null,
  }));
  const seenUnder = new Map<string, string[]>();
  rows.forEach((r, i) => {
    if (r.providerId !== null && unique.has(r.providerId))
      seenUnder.set(r.providerId, [...(seenUnder.get(r.providerId) ?? []), `row-${i}`]);
  });
  return { stored, seenUnder };
}

describe("placeholders and unique ids", () => {
  test('"0", "000", "-", "null" and blank ids are placeholders; real references are not', () => {
    for (const id of ["0", "000", "-", " ", "null", "N/A"]) expect(isPlaceholderId(id)).toBe(true);
    for (const id of ["5561990681", "2026-01-12-1", "a"]) expect(isPlaceholderId(id)).toBe(false);
  });

  test("an id used twice in one answer is no id", () => {
    const ids = uniqueProviderIds([
      row({ providerId: "a" }),
      row({ providerId: "b" }),
      row({ providerId: "b" }),
      row({ providerId: "0" }),
    ]);
    expect([...ids]).toEqual(["a"]);
  });
});

describe("matching an answer to stored rows", () => {
  test("a provider id that now names different content is a different transaction", () => {
    const rent = row({
      providerId: "5",
      amount: "-1200.00",
      description: "Rent",
      counterpartyName: "Landlord",
    });
    const { stored, seenUnder } = storeAll([rent]);
    const app = row({
      providerId: "5",
      amount: "-4.99",
      description: "App Store",
      counterpartyName: null,
    });
    expect(matchRows([app], stored, seenUnder)).toEqual([{ kind: "new" }]);
  });

  test("a refined text under the same unique id is the same transaction", () => {
    const { stored, seenUnder } = storeAll([
      row({ providerId: "r1", description: "CAFE AALTO 1234" }),
    ]);
    const refined = row({ providerId: "r1", description: "Cafe Aalto Helsinki" });
    expect(matchRows([refined], stored, seenUnder)).toEqual([
      { kind: "stored", rowId: "row-0", by: "compatible_id" },
    ]);
  });

  test("a pending amount may change under its id (a tip added); a booked one may not", () => {
    const pending = row({ providerId: "p", status: "pending", amount: "-20.00" });
    const booked = row({ providerId: "b", amount: "-20.00" });
    const { stored, seenUnder } = storeAll([pending, booked]);
    expect(
      matchRows(
        [
          { ...pending, amount: "-24.00" },
          { ...booked, amount: "-24.00" },
        ],
        stored,
        seenUnder,
      ),
    ).toEqual([{ kind: "stored", rowId: "row-0", by: "compatible_id" }, { kind: "new" }]);
  });
});

describe("pending to booked", () => {
  const pending: StoredRow = {
    ...row({
      status: "pending",
      bookingDate: "2026-01-12",
      description: "Card 1234 RESTAURANT SAVOY",
    }),
    id: "p1",
    bookedTransactionId: null,
    removedAt: null,
  };

  test("the same amount and currency, a shared word, booked up to seven days later", () => {
    const booked = row({ bookingDate: "2026-01-14", description: "RESTAURANT SAVOY HELSINKI" });
    expect(pendingReplaced(booked, [pending], new Set())?.id).toBe("p1");
  });

  test("another amount, another party or eight days later is not the same transaction", () => {
    for (const booked of [
      row({ bookingDate: "2026-01-14", amount: "-5.00", description: "RESTAURANT SAVOY" }),
      row({
        bookingDate: "2026-01-14",
        description: "Grocery store",
        counterpartyName: "K-Market",
      }),
      row({ bookingDate: "2026-01-20", description: "RESTAURANT SAVOY" }),
    ])
      expect(pendingReplaced(booked, [pending], new Set())).toBeUndefined();
  });
});

// Rows drawn from a small pool of contents, so identical rows (the coffees) are common.
const content = fc.record({
  status: fc.constantFrom("booked" as const, "pending" as const),
  amount: fc.constantFrom("-4.50", "-12.30", "2500.00"),
  currency: fc.constant("EUR"),
  bookingDate: fc.constantFrom("2026-01-13", "2026-01-14"),
  description: fc.constantFrom("Cafe Aalto", "Rent", "Salary"),
  counterpartyName: fc.constantFrom(null, "Cafe Aalto"),
});
const providerId = fc.oneof(
  fc.constant(null),
  fc.constantFrom("0", "1", "2", "3", "4", "5"),
  fc.string({ minLength: 1, maxLength: 3 }),
);
const answer = fc.array(fc.record({ content, providerId }), { minLength: 1, maxLength: 12 });

describe("properties over any answer", () => {
  test("re-reading an answer whose provider ids changed (renumbered, churned, placeholders) creates no row and overwrites none", () => {
    fc.assert(
      fc.property(
        answer,
        fc.array(providerId, { minLength: 12, maxLength: 12 }),
        fc.array(fc.nat(), { minLength: 12, maxLength: 12 }),
        (rows, newIds, order) => {
          const first = rows.map((r) => ({ ...r.content, providerId: r.providerId }));
          const { stored, seenUnder } = storeAll(first);
          // The same transactions, in another order, each under another id.
          const again = first
            .map((r, i) => ({ r, key: order[i] ?? 0 }))
            .sort((a, b) => a.key - b.key)
            .map(({ r }, i) => ({ ...r, providerId: newIds[i] ?? null }));
          const matches = matchRows(again, stored, seenUnder);
          const byId = new Map(stored.map((s) => [s.id, s]));
          const taken = matches.map((m) => (m.kind === "stored" ? m.rowId : "new"));
          return (
            !taken.includes("new") &&
            new Set(taken).size === taken.length &&
            matches.every((m, i) => {
              const s = m.kind === "stored" ? byId.get(m.rowId) : undefined;
              const incoming = again[i];
              return (
                s !== undefined &&
                incoming !== undefined &&
                s.status === incoming.status &&
                fingerprint(s) === fingerprint(incoming)
              );
            })
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  test("a stored row is never taken by a row of other status or amount, whatever ids say", () => {
    fc.assert(
      fc.property(answer, answer, (before, after) => {
        const { stored, seenUnder } = storeAll(
          before.map((r) => ({ ...r.content, providerId: r.providerId })),
        );
        const incoming = after.map((r) => ({ ...r.content, providerId: r.providerId }));
        const byId = new Map(stored.map((s) => [s.id, s]));
        return matchRows(incoming, stored, seenUnder).every((m, i) => {
          if (m.kind === "new") return true;
          const s = byId.get(m.rowId);
          const r = incoming[i];
          return (
            s !== undefined &&
            r !== undefined &&
            s.status === r.status &&
            (s.amount === r.amount || s.status === "pending")
          );
        });
      }),
      { numRuns: 500 },
    );
  });
});
