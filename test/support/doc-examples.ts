// Executable documentation: the ```sh run blocks of the docs are run with bash, one after
// another in one session (variables carry over, as in a reader's terminal), and what they print
// is compared with the ```json output or ```text output block that follows them.
//
// Comparison rules (what a reader may rely on, without pinning data that differs per run):
// - JSON: the same keys at every level and the same value types (null matches anything, since
//   nullable fields are null in some rows); arrays must be non-empty when the example's is, and
//   every element must match the example's first; `code`, `message`, `status`, `api_version`
//   and `currency` must be equal.
// - text: line by line after replacing UUIDs, timestamps, dates and decimal amounts with
//   placeholders on both sides; `…` in the example matches anything.
import { mkdirSync } from "node:fs";
import { join } from "node:path";

export interface DocExample {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  output?: { kind: "json" | "text"; text: string };
}

const fence = /^```(\S*)(?: (.*))?$/;

export function extractExamples(markdown: string, file: string): DocExample[] {
  const lines = markdown.split("\n");
  const blocks: { info: string; attr: string; line: number; text: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = fence.exec(lines[i] as string);
    if (!open || open[1] === "") continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== "```"; i++) body.push(lines[i] as string);
    blocks.push({
      info: open[1] as string,
      attr: (open[2] ?? "").trim(),
      line: start + 1,
      text: body.join("\n"),
    });
  }
  const examples: DocExample[] = [];
  blocks.forEach((block, index) => {
    if (block.info !== "sh" || block.attr !== "run") return;
    const next = blocks[index + 1];
    const output =
      next && next.attr === "output" && (next.info === "json" || next.info === "text")
        ? { kind: next.info as "json" | "text", text: next.text }
        : undefined;
    examples.push({ file, line: block.line, code: block.text, ...(output ? { output } : {}) });
  });
  return examples;
}

const exactKeys = new Set(["code", "message", "status", "api_version", "currency"]);

function kind(value: unknown): string {
  if (value === null) return "null";
  return Array.isArray(value) ? "array" : typeof value;
}

function compareJson(expected: unknown, actual: unknown, path: string, problems: string[]): void {
  if (expected === null || actual === null) return;
  if (kind(expected) !== kind(actual)) {
    problems.push(`${path}: expected a ${kind(expected)}, got ${JSON.stringify(actual)}`);
    return;
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length > 0 && actual.length === 0)
      problems.push(`${path}: expected items, got []`);
    if (expected.length > 0) {
      actual.forEach((item, i) => {
        compareJson(expected[0], item, `${path}[${i}]`, problems);
      });
    }
    return;
  }
  if (typeof expected === "object" && typeof actual === "object") {
    const e = expected as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    const want = Object.keys(e).sort().join(",");
    const got = Object.keys(a).sort().join(",");
    if (want !== got) problems.push(`${path}: expected keys ${want}, got ${got}`);
    for (const key of Object.keys(e)) {
      if (!(key in a)) continue;
      if (exactKeys.has(key) && typeof e[key] === "string" && e[key] !== a[key]) {
        problems.push(
          `${path}.${key}: expected ${JSON.stringify(e[key])}, got ${JSON.stringify(a[key])}`,
        );
      }
      compareJson(e[key], a[key], `${path}.${key}`, problems);
    }
  }
}

const variable: [RegExp, string][] = [
  [/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>"],
  [/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, "<timestamp>"],
  [/\d{4}-\d{2}-\d{2}/g, "<date>"],
  [/-?\d+\.\d+/g, "<amount>"],
];

function normalise(text: string): string {
  return variable.reduce((out, [pattern, placeholder]) => out.replace(pattern, placeholder), text);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** What differs between an example's shown output and the real one; empty when they match. */
export function compareOutput(
  expected: NonNullable<DocExample["output"]>,
  stdout: string,
): string[] {
  if (expected.kind === "json") {
    let actual: unknown;
    try {
      actual = JSON.parse(stdout);
    } catch {
      return [`output is not JSON: ${stdout.slice(0, 200)}`];
    }
    const problems: string[] = [];
    compareJson(JSON.parse(expected.text), actual, "$", problems);
    return problems;
  }
  // "…" stands for whatever follows, possibly nothing (a line "…" may match no line at all).
  const pattern = normalise(expected.text.trim().replace(/\n…/g, "…"))
    .split("…")
    .map((part) => escapeRegExp(part))
    .join("[\\s\\S]*");
  // HTTP headers (curl -D -) end their lines with CRLF.
  const actual = normalise(stdout.replace(/\r\n/g, "\n").trim());
  return new RegExp(`^${pattern}$`).test(actual)
    ? []
    : [`expected output\n${expected.text.trim()}\ngot\n${stdout.trim()}`];
}

export interface ShellRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * A bash session in `cwd`: each run starts from the variables the previous runs left (saved
 * with `declare -p` into a state file), with `set -euo pipefail`.
 */
export function shellSession(cwd: string, env: Record<string, string>) {
  mkdirSync(cwd, { recursive: true });
  const state = join(cwd, ".doc-session-state");
  const wrapper = (code: string) => `
set -euo pipefail
if [ -f ${JSON.stringify(state)} ]; then source ${JSON.stringify(state)}; fi
${code}
for __name in $(compgen -v); do
  case "$__name" in
    __*|BASH*|PIPESTATUS|FUNCNAME|GROUPS|DIRSTACK|EUID|PPID|UID|SHELLOPTS|RANDOM|SECONDS|LINENO|SRANDOM|EPOCH*|HIST*|OPT*|PWD|OLDPWD|SHLVL|_|IFS|PS4|COLUMNS|LINES|HOSTNAME|HOSTTYPE|MACHTYPE|OSTYPE|PATH|HOME|TERM|COMP*|PS1|PS2|MAIL*|OPTERR|OPTIND) ;;
    *) declare -p "$__name" ;;
  esac
done > ${JSON.stringify(`${state}.next`)}
mv ${JSON.stringify(`${state}.next`)} ${JSON.stringify(state)}
`;
  return {
    async run(code: string, timeoutMs = 30_000): Promise<ShellRun> {
      const child = Bun.spawn(["bash", "-c", wrapper(code)], {
        cwd,
        env,
        stdout: "pipe",
        stderr: "pipe",
      });
      const timer = setTimeout(() => child.kill(), timeoutMs);
      const [stdout, stderr, exitCode] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
        child.exited,
      ]);
      clearTimeout(timer);
      return { exitCode, stdout, stderr };
    },
  };
}
