// Text from a bank as our model stores it: well-formed Unicode (a lone surrogate becomes U+FFFD),
// control characters as spaces (PostgreSQL text holds no NUL), runs of spaces folded, cut to the
// column's length without splitting a surrogate pair. Empty text is null: a bank's "" or "  "
// says nothing.

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function providerText(value: unknown, max: number): string | null {
  if (typeof value !== "string") return null;
  const clean = value
    .replace(loneSurrogate, "\ufffd")
    .replace(/\p{Cc}+/gu, " ")
    .replace(/\s+/g, " ");
  let text = clean.trim();
  if (text.length > max) {
    text = text.slice(0, max);
    if (/[\ud800-\udbff]$/.test(text)) text = text.slice(0, -1);
    text = text.trimEnd();
  }
  return text.length > 0 ? text : null;
}
