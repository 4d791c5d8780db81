import { toJsonNames } from "../core/json-names.ts";
import type { CliIo } from "./io.ts";

/** Prints either the human text or, with --json, the value as one JSON document. */
export interface Output {
  readonly json: boolean;
  result(value: unknown, human: string | (() => string)): void;
  /** Human-only progress or notice lines; with --json they go to stderr so stdout stays parseable. */
  note(text: string): void;
}

export function createOutput(io: CliIo, json: boolean): Output {
  return {
    json,
    result(value, human) {
      if (json) io.stdout(`${JSON.stringify(toJsonNames(value), null, 2)}\n`);
      else io.stdout(`${typeof human === "function" ? human() : human}\n`);
    },
    note(text) {
      (json ? io.stderr : io.stdout)(`${text}\n`);
    },
  };
}

/** A plain text table: columns padded to the widest cell. */
export function formatTable(
  headers: string[],
  rows: (string | number | null | undefined)[][],
): string {
  const cells = rows.map((row) =>
    row.map((cell) => (cell === null || cell === undefined ? "-" : String(cell))),
  );
  const widths = headers.map((header, i) =>
    Math.max(header.length, ...cells.map((row) => row[i]?.length ?? 0)),
  );
  const line = (row: string[]) =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  if (cells.length === 0) return `${line(headers)}\n(none)`;
  return [line(headers), ...cells.map(line)].join("\n");
}
