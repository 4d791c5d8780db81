// The read lane's shortcuts for schemas whose verdict follows from their shape give the schemas'
// verdict and value, and are taken only for such schemas.
import { describe, expect, test } from "bun:test";
import { z } from "@hono/zod-openapi";
import fc from "fast-check";
import { eventPathParams } from "../../src/api/events/query.ts";
import { guidParamsCheck, takesAnyHeaderValues } from "../../src/api/middleware/lane-checks.ts";
import { accountPathParams, connectionPathParams } from "../../src/api/shared/params.ts";
import { conditionalReadHeaders } from "../../src/api/shared/responses.ts";

describe("path parameters of plain UUIDs", () => {
  const schemas = { accountPathParams, connectionPathParams, eventPathParams };
  for (const [name, schema] of Object.entries(schemas)) {
    test(`${name}: the same verdict and value as the schema`, () => {
      const check = guidParamsCheck(schema);
      expect(check).toBeDefined();
      const [field] = Object.keys(schema.shape) as [string];
      const text = fc.oneof(
        fc.uuid(),
        fc.uuid().map((id) => id.toUpperCase()),
        fc.uuid().map((id) => id.replaceAll("-", "")),
        fc.uuid().map((id) => `${id}x`),
        fc.constantFrom("00000000-0000-0000-0000-000000000000", "not-a-uuid", "", " "),
        fc.string({ maxLength: 40 }),
        fc.stringMatching(/^[0-9a-fA-FgG-]{30,40}$/),
      );
      fc.assert(
        fc.property(text, (given) => {
          const value = { [field]: given };
          const byZod = schema.safeParse(value);
          const byHand = check?.(value);
          expect(byHand?.success).toBe(byZod.success);
          if (byHand?.success && byZod.success) expect(byHand.data).toStrictEqual(byZod.data);
        }),
        { numRuns: 3_000 },
      );
    });
  }

  test.each([
    ["a string", z.object({ id: z.string() })],
    ["a UUID with a check", z.object({ id: z.guid().min(36) })],
    ["a refined object", z.object({ id: z.guid() }).refine(() => false)],
    ["a strict object", z.strictObject({ id: z.guid() })],
    ["an object with a catchall", z.object({ id: z.guid() }).catchall(z.string())],
    ["an optional UUID", z.object({ id: z.guid().optional() })],
    ["a uuid of a version", z.object({ id: z.uuid() })],
  ])("not for %s", (_, schema) => expect(guidParamsCheck(schema)).toBeUndefined());
});

describe("headers of optional plain strings", () => {
  test("the conditional reads' If-None-Match", () => {
    expect(takesAnyHeaderValues(conditionalReadHeaders)).toBe(true);
    for (const value of [{}, { "If-None-Match": "" }, { "If-None-Match": '"x", W/"y"' }]) {
      expect(conditionalReadHeaders.safeParse(value).success).toBe(true);
    }
  });

  test.each([
    ["a required string", z.object({ a: z.string() })],
    ["a string with a check", z.object({ a: z.string().min(1).optional() })],
    ["a format", z.object({ a: z.email().optional() })],
    ["a transform", z.object({ a: z.string().transform(Number).optional() })],
    ["an enum", z.object({ a: z.enum(["x"]).optional() })],
    ["a strict object", z.strictObject({ a: z.string().optional() })],
    ["a refined object", z.object({ a: z.string().optional() }).refine(() => false)],
  ])("not for %s", (_, schema) => expect(takesAnyHeaderValues(schema)).toBe(false));
});
