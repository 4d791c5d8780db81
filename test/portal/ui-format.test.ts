// Rules of the portal's small formatting helpers (admin-ui), run without a browser.
import { describe, expect, test } from "bun:test";
import {
  exactUtc,
  formatDurationMs,
  formatMoney,
  localHour,
  localTime,
  prettyJson,
  relativeTime,
} from "../../admin-ui/components/format.ts";
import { formatRetry } from "../../admin-ui/components/retry.ts";
import { formatRemaining } from "../../admin-ui/components/ui.tsx";
import { matchRoute } from "../../admin-ui/router.ts";

describe("portal UI helpers", () => {
  test("remaining time reads in hours and minutes, minutes and seconds, or seconds", () => {
    expect(formatRemaining(60 * 60_000)).toBe("1 h 00 min");
    expect(formatRemaining(59 * 60_000 + 5_000)).toBe("59 min 05 s");
    expect(formatRemaining(12_000)).toBe("12 s");
    expect(formatRemaining(1)).toBe("1 s");
    expect(formatRemaining(-5)).toBe("0 s");
  });

  test("hash routes match with their parameters and nothing else", () => {
    expect(matchRoute("/webhooks/:id", "/webhooks/abc")).toEqual({ id: "abc" });
    expect(matchRoute("/webhooks/:id", "/webhooks")).toBeUndefined();
    expect(matchRoute("/webhooks/:id", "/webhooks/a/b")).toBeUndefined();
  });
});

describe("portal formats (local times, ms, money in the account's currency)", () => {
  test("relative time reads as people say it, past and future", () => {
    const now = Date.parse("2026-11-25T06:00:00Z");
    expect(relativeTime("2026-11-25T05:57:00Z", now, "en")).toBe("3 minutes ago");
    expect(relativeTime("2026-11-25T08:00:00Z", now, "en")).toBe("in 2 hours");
    expect(relativeTime("2026-11-24T06:00:00Z", now, "en")).toBe("yesterday");
    expect(relativeTime("2026-11-25T06:00:04Z", now, "en")).toBe("now");
  });

  test("local time is written in the given zone; the exact UTC stays available", () => {
    const iso = "2026-11-25T06:35:16.000Z";
    expect(localTime(iso, "en-GB", "Pacific/Auckland")).toBe("25 Nov 2026, 19:35");
    expect(exactUtc(iso)).toBe("2026-11-25 06:35:16 UTC");
    expect(exactUtc("2026-11-25T06:35:16Z")).toBe("2026-11-25 06:35:16 UTC");
  });

  test("a chart's hour is written in the given zone (the delivery log uses the shared formats)", () => {
    expect(localHour("2026-11-25T06:00:00.000Z", "en-GB", "Pacific/Auckland")).toBe("19:00");
    expect(localHour("2026-11-25T06:00:00.000Z", "en-GB", "UTC")).toBe("06:00");
    expect(localHour("not a time")).toBe("not a time");
  });

  test("a JSON body is indented for reading; a body that is not JSON is shown as it came", () => {
    expect(prettyJson('{"id":"e1","data":{"n":1}}')).toBe(
      '{\n  "id": "e1",\n  "data": {\n    "n": 1\n  }\n}',
    );
    expect(prettyJson("not json {")).toBe("not json {");
  });

  test("durations are whole milliseconds; money uses the currency's own format without float rounding", () => {
    expect(formatDurationMs(87, "en")).toBe("87 ms");
    expect(formatDurationMs(10_000, "en")).toBe("10,000 ms");
    expect(formatMoney("-1234.50", "EUR", "en-GB")).toBe("-€1,234.50");
    expect(formatMoney("1234.5", "JPY", "en-US")).toBe("¥1,235");
    expect(formatMoney("90071992547409.93", "USD", "en-US")).toBe("$90,071,992,547,409.93");
    expect(formatMoney("5.00", "XXXX", "en")).toBe("5.00 XXXX");
  });

  test("a 429 says when to try again, from Retry-After", () => {
    const now = Date.parse("2026-11-25T06:00:00Z");
    expect(formatRetry(42, now)).toStartWith("Try again in 42 s (at ");
    expect(formatRetry(3600, now)).toStartWith("Try again in 60 min (at ");
  });
});
