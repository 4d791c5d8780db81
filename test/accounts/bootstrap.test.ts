// The first operator: instances starting together on an empty
// database create exactly one.
import { afterAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { ensureFirstOperator } from "../../src/accounts/bootstrap.ts";
import { openDatabase } from "../../src/db/open.ts";
import { createTestServices } from "../support/services.ts";

const services = await createTestServices();
const others = [openDatabase(services.config), openDatabase(services.config)];
afterAll(async () => {
  for (const other of others) await other.close();
  await services.database.close();
});

describe("the first operator", () => {
  test("three instances starting at once on an empty database create exactly one, and report it once", async () => {
    const results = await Promise.all([
      ensureFirstOperator(services.db, services.clock, { password: "first operator pass 1" }),
      ...others.map((other) =>
        ensureFirstOperator(other.db, services.clock, { password: "first operator pass 1" }),
      ),
    ]);
    expect(results.filter((created) => created !== undefined)).toHaveLength(1);
    const { users } = services.db.t;
    const operators = await services.db.select().from(users).where(eq(users.isOperator, true));
    expect(operators).toHaveLength(1);
    expect(await ensureFirstOperator(services.db, services.clock)).toBeUndefined();
  });
});
