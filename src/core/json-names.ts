// One naming for JSON leaving the process (the project rule: snake_case for API JSON, CLI
// --json and docs). Feature views are camelCase TypeScript; the CLI's --json and the operator
// HTTP API (import) print them through here, so a key, an endpoint or a delivery has one shape
// wherever it appears. The portal's own JSON API stays camelCase (its UI reads it).
const camelKey = /^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$/;

/**
 * The names everything leaving the process uses: `--json` prints the same
 * views the portal and the feature functions use, with each camelCase key spelled in snake_case
 * (`endpointId` -> `endpoint_id`), the API's convention, so a key, an endpoint or a delivery has
 * one shape in every command. Keys that are not plain camelCase words (event types, ids, table
 * names already in snake_case) are left as they are; Dates become ISO strings as in JSON.
 */
export function toJsonNames(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toJsonNames);
  if (value === null || typeof value !== "object" || value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const name = camelKey.test(key) ? key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) : key;
    out[name] = toJsonNames(item);
  }
  return out;
}
