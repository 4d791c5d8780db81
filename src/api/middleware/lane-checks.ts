// Schemas whose verdict the read lane can give without running them, because it follows from
// their shape: path parameters that are all plain UUIDs, and headers that are all optional plain
// strings. Anything else is run as it is (read-lane.ts). test/api/lane-checks.test.ts holds the
// two shortcuts to the schemas they stand for.
import { z } from "@hono/zod-openapi";

/** A parse's verdict and value, as the lane takes it. */
export type LaneParse = (value: unknown) => { success: true; data: unknown } | { success: false };

const noChecks = (schema: z.ZodType) => (schema._zod.def.checks?.length ?? 0) === 0;
const isPlainObject = (schema: z.ZodType): schema is z.ZodObject =>
  schema instanceof z.ZodObject && schema._zod.def.catchall === undefined && noChecks(schema);

/**
 * For an object of plain `z.guid()` fields: its parse of the lane's path parameters (strings by
 * name, only the route's), as the UUID pattern's test of each. Otherwise undefined.
 */
export function guidParamsCheck(schema: z.ZodType): LaneParse | undefined {
  if (!isPlainObject(schema)) return undefined;
  const names = Object.keys(schema.shape);
  if (!names.every((name) => isPlainGuid(schema.shape[name] as z.ZodType))) return undefined;
  const pattern = z.regexes.guid;
  return (value) => {
    const given = value as Record<string, unknown>;
    const data: Record<string, string> = {};
    for (const name of names) {
      const field = given[name];
      if (typeof field !== "string" || !pattern.test(field)) return { success: false };
      data[name] = field;
    }
    return { success: true, data };
  };
}

function isPlainGuid(field: z.ZodType): boolean {
  return field instanceof z.ZodGUID && noChecks(field);
}

/**
 * Whether every field of a header schema is an optional plain string: then headers read by name
 * (a string, or absent) always pass it, and the lane need not gather them.
 */
export function takesAnyHeaderValues(schema: z.ZodType): boolean {
  if (!isPlainObject(schema)) return false;
  return Object.values(schema.shape).every(
    (field) =>
      field instanceof z.ZodOptional &&
      noChecks(field) &&
      field.unwrap() instanceof z.ZodString &&
      field.unwrap().constructor === z.ZodString &&
      noChecks(field.unwrap() as z.ZodType),
  );
}
