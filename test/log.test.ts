import { describe, expect, test } from "bun:test";
import { createLogger, redactSecrets } from "../src/log.ts";

const apiKey = `svk_AbCd_123_${"x".repeat(43)}`;

describe("logs never carry a secret", () => {
  test("an API key in any string is cut to its 12-character display prefix", () => {
    expect(redactSecrets(`Bearer ${apiKey}`)).toBe("Bearer svk_AbCd_123_[redacted]");
  });

  test("any other bearer credential in a string (a malformed key, the metrics token) is masked whole", () => {
    expect(redactSecrets("Authorization: Bearer svk_truncated")).toBe(
      "Authorization: Bearer [redacted]",
    );
    expect(redactSecrets('{"h":"bearer 0123456789abcdef0123456789abcdef"}')).toBe(
      '{"h":"bearer [redacted]"}',
    );
  });

  test("a signing secret in any string is masked", () => {
    expect(redactSecrets("secret whsec_abc-DEF_123 here")).toBe("secret whsec_[redacted] here");
  });

  test("fields named like secrets are dropped and nested strings are scrubbed", () => {
    const lines: string[] = [];
    const log = createLogger({ write: (line) => lines.push(line) });
    log.info(`got ${apiKey}`, {
      password: "hunter2hunter2",
      authorization: "Bearer x",
      nested: { note: apiKey },
      code: "ABCD2345",
    });
    const record = JSON.parse(lines[0] ?? "{}");
    expect(record.msg).toBe("got svk_AbCd_123_[redacted]");
    expect(record.password).toBe("[redacted]");
    expect(record.authorization).toBe("[redacted]");
    expect(record.code).toBe("[redacted]");
    expect(record.nested.note).toBe("svk_AbCd_123_[redacted]");
    expect(lines[0]).not.toContain("x".repeat(43));
  });

  test("levels below the threshold are not written", () => {
    const lines: string[] = [];
    const log = createLogger({ level: "warn", write: (line) => lines.push(line) });
    log.info("quiet");
    log.warn("loud");
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(["loud"]);
  });
});
