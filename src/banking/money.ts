// Money as decimal strings with an ISO 4217 currency, never floats (a float cannot hold 0.10
// exactly). Amounts are normalised to at least the currency's minor-unit digits ("12.3" EUR ->
// "12.30", "1500" JPY -> "1500"), so the same amount always compares equal as text.

const isoCurrencies = new Set(Intl.supportedValuesOf("currency"));

export function isCurrencyCode(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && isoCurrencies.has(code);
}

// A cache of a pure lookup (building an Intl.NumberFormat costs tens of microseconds, and every
// amount of every sync asks); it holds at most one entry per ISO currency.
const digitsByCurrency = new Map<string, number>();

/** The number of minor-unit digits of a currency (EUR 2, JPY 0, BHD 3). */
export function minorDigits(currency: string): number {
  let digits = digitsByCurrency.get(currency);
  if (digits === undefined) {
    digits =
      new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions()
        .maximumFractionDigits ?? 2;
    digitsByCurrency.set(currency, digits);
  }
  return digits;
}

const decimalPattern = /^([+-]?)(\d+)(?:\.(\d+))?$/;

export function isDecimalAmount(text: string): boolean {
  return decimalPattern.test(text);
}

/**
 * Canonical text of a signed decimal amount: no "+" sign, no leading zeros, at least the
 * currency's minor digits, no trailing zeros beyond them, and zero is never negative.
 */
export function normalizeAmount(text: string, currency: string): string {
  const match = decimalPattern.exec(text);
  if (!match) throw new TypeError(`not a decimal amount: ${JSON.stringify(text)}`);
  const [, sign, whole = "0", fraction = ""] = match;
  const digits = minorDigits(currency);
  let frac = fraction.padEnd(digits, "0");
  while (frac.length > digits && frac.endsWith("0")) frac = frac.slice(0, -1);
  const int = whole.replace(/^0+(?=\d)/, "");
  const isZero = /^0*$/.test(int) && /^0*$/.test(frac);
  const body = frac.length > 0 ? `${int}.${frac}` : int;
  return sign === "-" && !isZero ? `-${body}` : body;
}

/** Renders integer minor units as a decimal string (the sandbox bank computes in cents). */
export function formatMinorUnits(minor: number, currency: string): string {
  if (!Number.isSafeInteger(minor)) throw new TypeError(`not a whole number of minor units`);
  const digits = minorDigits(currency);
  const negative = minor < 0;
  const text = String(Math.abs(minor)).padStart(digits + 1, "0");
  const body = digits > 0 ? `${text.slice(0, -digits)}.${text.slice(-digits)}` : text;
  return negative ? `-${body}` : body;
}
