// Rules of the portal's small formatting helpers (admin-ui), run without a browser.
import { describe, expect, test } from "bun:test";
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
