// The rules the executable-docs runner compares by (test/support/doc-examples.ts): strict where
// a reader relies on the text, loose only where data differs from run to run.
import { describe, expect, test } from "bun:test";
import { compareOutput, extractExamples } from "../support/doc-examples.ts";

const json = (text: string) => ({ kind: "json" as const, text });
const text = (body: string) => ({ kind: "text" as const, text: body });

describe("executable docs: extraction", () => {
  test("only ```sh run blocks are examples; the ```json/```text output block after one is its expected output", () => {
    const markdown = [
      "```sh",
      "echo not run",
      "```",
      "```sh run",
      "echo one",
      "```",
      "",
      "```text output",
      "one",
      "```",
      "```sh run",
      "echo two",
      "```",
      "```json",
      "{}",
      "```",
    ].join("\n");
    expect(extractExamples(markdown, "x.md")).toEqual([
      { file: "x.md", line: 4, code: "echo one", output: { kind: "text", text: "one" } },
      { file: "x.md", line: 11, code: "echo two" },
    ]);
  });
});

describe("executable docs: JSON output", () => {
  const shown = json(
    '{"data":[{"account_id":"29a6039c-c6a3-4c62-b5a3-1b624f776a69","iban":null,"currency":"EUR"}],"next_cursor":null}',
  );

  test("other ids and values of the same types match; null matches any type", () => {
    expect(
      compareOutput(
        shown,
        '{"data":[{"account_id":"a83e3d1a-7f6c-4265-9dcf-3691914bd051","iban":"DE79","currency":"EUR"}],"next_cursor":"abc"}',
      ),
    ).toEqual([]);
  });

  test("a missing or extra key, another type, an empty list or another currency is a difference", () => {
    for (const actual of [
      '{"data":[{"account_id":"x","currency":"EUR"}],"next_cursor":null}',
      '{"data":[{"account_id":"x","iban":null,"currency":"EUR","extra":1}],"next_cursor":null}',
      '{"data":[{"account_id":1,"iban":null,"currency":"EUR"}],"next_cursor":null}',
      '{"data":[],"next_cursor":null}',
      '{"data":[{"account_id":"x","iban":null,"currency":"USD"}],"next_cursor":null}',
      "not json",
    ]) {
      expect(compareOutput(shown, actual).length).toBeGreaterThan(0);
    }
  });

  test("an error's code and message must be exactly the ones shown", () => {
    const error = json('{"error":{"code":"not_found","message":"No account 1."}}');
    expect(
      compareOutput(error, '{"error":{"code":"not_found","message":"No account 1."}}'),
    ).toEqual([]);
    expect(
      compareOutput(error, '{"error":{"code":"invalid_request","message":"No account 1."}}'),
    ).toHaveLength(1);
    expect(
      compareOutput(error, '{"error":{"code":"not_found","message":"No account 2."}}'),
    ).toHaveLength(1);
  });
});

describe("executable docs: text output", () => {
  test("ids, dates and amounts may differ; other text must match; … matches anything", () => {
    const shown = text("29f8ddbb-f704-49d9-9884-f43169ef11c6\t2026-11-18\t-171.02\n…");
    expect(
      compareOutput(shown, "a83e3d1a-7f6c-4265-9dcf-3691914bd051\t2026-01-02\t5.00\nmore\nlines\n"),
    ).toEqual([]);
    expect(compareOutput(text("401"), "401\n")).toEqual([]);
    expect(compareOutput(text("401"), "200\n")).toHaveLength(1);
    expect(compareOutput(text("signature ok"), "signature mismatch")).toHaveLength(1);
  });

  test("CRLF line ends (HTTP headers) compare like LF", () => {
    expect(compareOutput(text("A: 1\nB: …"), "A: 1\r\nB: 7\r\n")).toEqual([]);
  });
});
