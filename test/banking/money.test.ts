import { describe, expect, test } from "bun:test";
import {
  formatMinorUnits,
  isCurrencyCode,
  isDecimalAmount,
  minorDigits,
  normalizeAmount,
} from "../../src/banking/money.ts";
import { isCalendarDate } from "../../src/core/dates.ts";

describe("money as decimal strings (never floats)", () => {
  test.each([
    ["12.3", "EUR", "12.30"],
    ["+12.30", "EUR", "12.30"],
    ["-0012.3", "EUR", "-12.30"],
    ["-0.00", "EUR", "0.00"],
    ["1500", "JPY", "1500"],
    ["1500.0", "JPY", "1500"],
    ["1.5", "BHD", "1.500"],
    ["0.0012", "EUR", "0.0012"],
    ["7.100", "EUR", "7.10"],
  ])("normalizeAmount(%p, %p) is %p", (input, currency, expected) => {
    expect(normalizeAmount(input, currency)).toBe(expected);
  });

  test("only signed decimal strings are amounts", () => {
    for (const bad of ["12,30", "1e3", "", ".5", "12.", "--1", "NaN", " 1"]) {
      expect(isDecimalAmount(bad)).toBe(false);
    }
    expect(() => normalizeAmount("12,30", "EUR")).toThrow(TypeError);
  });

  test("minor units render with the currency's digits", () => {
    expect(formatMinorUnits(-1230, "EUR")).toBe("-12.30");
    expect(formatMinorUnits(5, "EUR")).toBe("0.05");
    expect(formatMinorUnits(0, "EUR")).toBe("0.00");
    expect(formatMinorUnits(1500, "JPY")).toBe("1500");
    expect(minorDigits("KWD")).toBe(3);
  });

  test("currencies are ISO 4217 codes", () => {
    expect(isCurrencyCode("EUR")).toBe(true);
    expect(isCurrencyCode("eur")).toBe(false);
    expect(isCurrencyCode("EURO")).toBe(false);
    expect(isCurrencyCode("ABC")).toBe(false);
  });

  test("dates are real calendar days written YYYY-MM-DD", () => {
    expect(isCalendarDate("2026-02-28")).toBe(true);
    expect(isCalendarDate("2028-02-29")).toBe(true);
    expect(isCalendarDate("2026-02-29")).toBe(false);
    expect(isCalendarDate("2026-1-5")).toBe(false);
    expect(isCalendarDate("2026-01-05T00:00:00Z")).toBe(false);
  });
});
