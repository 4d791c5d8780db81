// Validation of an ingest document: every problem is reported, each naming the record it is
// in (its path and, where it has one, its id) and the reason; a document with any problem is
// rejected whole.
import type { z } from "zod";
import { ApiError, type ErrorBody } from "../../core/errors.ts";
import { toJsonNames } from "../../core/json-names.ts";
import { type ImportDocument, importDocumentSchema } from "./schema.ts";

export interface ImportProblem {
  /** Where, e.g. `connections[0].accounts[1].transactions[3].amount`. */
  path: string;
  /** The id of the record the problem is in, when it has one. */
  recordId?: string;
  message: string;
}

/** How many problems are listed; the count says how many there were in all. */
const maxListedProblems = 100;

export class ImportRejected extends ApiError {
  constructor(readonly problems: ImportProblem[]) {
    const listed = problems.slice(0, maxListedProblems);
    const more = problems.length - listed.length;
    super(
      "invalid_request",
      [
        `The import was rejected and nothing was written: ${problems.length} problem${problems.length === 1 ? "" : "s"}.`,
        ...listed.map(
          (p) =>
            `  ${p.path}${p.recordId !== undefined ? ` (id ${JSON.stringify(p.recordId)})` : ""}: ${p.message}`,
        ),
        ...(more > 0 ? [`  ... and ${more} more`] : []),
      ].join("\n"),
    );
  }

  /** Problems in the API's snake_case (`record_id`), as every JSON answer outside the portal. */
  override toBody(): ErrorBody & { error: { problems: unknown } } {
    const body = super.toBody();
    return {
      error: { ...body.error, problems: toJsonNames(this.problems.slice(0, maxListedProblems)) },
    };
  }
}

function formatPath(path: readonly PropertyKey[]): string {
  let text = "";
  for (const key of path) {
    if (typeof key === "number") text += `[${key}]`;
    else text += text ? `.${String(key)}` : String(key);
  }
  return text || "(document)";
}

/** The id of the innermost record (array element) on `path` in the raw input. */
function recordIdAt(input: unknown, path: readonly PropertyKey[]): string | undefined {
  let node: unknown = input;
  let id: string | undefined;
  for (const key of path) {
    if (node === null || typeof node !== "object") break;
    node = (node as Record<PropertyKey, unknown>)[key as string];
    if (typeof key === "number" && node && typeof node === "object") {
      const candidate = (node as { id?: unknown }).id;
      id = typeof candidate === "string" ? candidate : undefined;
    }
  }
  return id;
}

function problem(input: unknown, path: readonly PropertyKey[], message: string): ImportProblem {
  const recordId = recordIdAt(input, path);
  return { path: formatPath(path), ...(recordId !== undefined ? { recordId } : {}), message };
}

/** The value at `path` in the raw input (what the operator wrote there). */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let node: unknown = input;
  for (const key of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<PropertyKey, unknown>)[key as string];
  }
  return node;
}

const typeWords: Record<string, string> = {
  string: "a string (in double quotes)",
  number: "a number",
  boolean: "true or false",
  array: "a list ([...])",
  object: "an object ({...})",
};

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "string") return `the string ${JSON.stringify(value)}`;
  if (typeof value === "object") return "an object";
  return `${typeof value} ${JSON.stringify(value)}`;
}

/**
 * A schema problem in an operator's words: zod's own wording ("Invalid input: expected string,
 * received number") is replaced for the issues an ingest file typically has; messages the
 * schema words itself ("must be an IBAN") are kept.
 */
function plainMessage(input: unknown, issue: z.core.$ZodIssue): string {
  const value = valueAt(input, issue.path);
  switch (issue.code) {
    case "invalid_type":
      if (value === undefined) return "is required";
      return `must be ${typeWords[issue.expected] ?? issue.expected}, not ${describeValue(value)}`;
    case "invalid_value":
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}, not ${describeValue(value)}`;
    case "unrecognized_keys":
      return `unknown field${issue.keys.length === 1 ? "" : "s"} ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}: remove ${issue.keys.length === 1 ? "it" : "them"} (see the ingest format)`;
    case "too_big":
      if (issue.message.startsWith("Too big") && issue.origin === "string")
        return `must be at most ${issue.maximum} characters`;
      return issue.message;
    case "too_small":
      if (issue.message.startsWith("Too small") && issue.origin === "string")
        return `must be at least ${issue.minimum} characters`;
      return issue.message;
    default:
      return issue.message;
  }
}

function schemaProblems(input: unknown, error: z.ZodError): ImportProblem[] {
  return error.issues.map((issue) => problem(input, issue.path, plainMessage(input, issue)));
}

/** Rules that span records: ids unique where they must be, pending links that make sense. */
function crossRecordProblems(document: ImportDocument): ImportProblem[] {
  const problems: ImportProblem[] = [];
  const duplicates = <T extends { id: string }>(items: T[], at: (i: number) => PropertyKey[]) => {
    const first = new Map<string, number>();
    items.forEach((item, i) => {
      const seen = first.get(item.id);
      if (seen === undefined) first.set(item.id, i);
      else problems.push(problem(document, at(i), `id is used again (first at index ${seen})`));
    });
  };
  duplicates(document.connections, (i) => ["connections", i, "id"]);
  document.connections.forEach((connection, c) => {
    duplicates(connection.accounts, (a) => ["connections", c, "accounts", a, "id"]);
    connection.accounts.forEach((account, a) => {
      const at = (t: number) => ["connections", c, "accounts", a, "transactions", t];
      duplicates(account.transactions, (t) => [...at(t), "id"]);
      account.transactions.forEach((transaction, t) => {
        if (!transaction.pending_id) return;
        if (transaction.status !== "booked")
          problems.push(
            problem(
              document,
              [...at(t), "pending_id"],
              "only a booked transaction can replace a pending one",
            ),
          );
        else if (transaction.pending_id === transaction.id)
          problems.push(
            problem(document, [...at(t), "pending_id"], "must name another transaction"),
          );
      });
    });
  });
  return problems;
}

/** Parses and checks a document; throws ImportRejected listing every problem. */
export function validateImportDocument(input: unknown): ImportDocument {
  const parsed = importDocumentSchema.safeParse(input);
  if (!parsed.success) throw new ImportRejected(schemaProblems(input, parsed.error));
  const problems = crossRecordProblems(parsed.data);
  if (problems.length > 0) throw new ImportRejected(problems);
  return parsed.data;
}
