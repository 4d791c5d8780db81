// The PostgreSQL connection URL (`databaseUrl`): validated, and spelled without its password
// wherever it is shown (logs, errors, --help, `svc db copy`). Bun's SQL client honours the
// libpq parameters in it (sslmode, sslrootcert, ...).

const databaseUrlProtocols = ["postgres:", "postgresql:"] as const;

/** The URL with its password replaced by `***` (unparsable text is hidden whole). */
export function redactDatabaseUrl(text: string): string {
  if (!URL.canParse(text)) return "(a database URL that cannot be parsed)";
  const url = new URL(text);
  if (url.password) url.password = "***";
  for (const key of [...url.searchParams.keys()]) {
    if (/pass/i.test(key)) url.searchParams.set(key, "***");
  }
  return url.toString();
}

/** Why `text` is not a usable PostgreSQL URL, or undefined when it is. */
export function databaseUrlProblem(text: string): string | undefined {
  if (!URL.canParse(text)) {
    return "must be a URL such as postgres://svc:PASSWORD@db.example.com:5432/svc?sslmode=verify-full";
  }
  const url = new URL(text);
  if (!(databaseUrlProtocols as readonly string[]).includes(url.protocol)) {
    return "must start with postgres:// or postgresql://";
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, ""));
  if (!url.hostname && !url.searchParams.has("host")) return "must name the database server's host";
  if (!database) return "must name the database, e.g. postgres://host:5432/svc";
  const mode = url.searchParams.get("sslmode");
  if (
    mode !== null &&
    !["disable", "allow", "prefer", "require", "verify-ca", "verify-full"].includes(mode)
  ) {
    return `sslmode must be one of disable, allow, prefer, require, verify-ca, verify-full (got "${mode}")`;
  }
  return undefined;
}
