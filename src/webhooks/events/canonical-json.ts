// Canonical JSON (spec 2 "Event envelope"): keys sorted alphabetically at every
// level, compact separators. The string produced here is stored, signed and sent unchanged.

function canonical(value: unknown, path: string): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "number":
      if (!Number.isFinite(value))
        throw new TypeError(`canonical JSON: ${path} is not a finite number`);
      return JSON.stringify(value);
    case "object": {
      if (Array.isArray(value))
        return `[${value.map((item, i) => canonical(item, `${path}[${i}]`)).join(",")}]`;
      const entries = Object.entries(value as Record<string, unknown>)
        .filter(([, item]) => item !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item, `${path}.${key}`)}`).join(",")}}`;
    }
    default:
      throw new TypeError(`canonical JSON: ${path} has unsupported type ${typeof value}`);
  }
}

export function canonicalJson(value: unknown): string {
  return canonical(value, "$");
}
