// A connection's notice (docs/providers.md "Notices"): the provider's latest message to the user
// (SimpleFIN's errors, shown even when accounts come back) and what the last sync skipped. It is
// shown to the owner, so it never carries a URL path or query (a SimpleFIN message may quote its
// access URL, whose path and user info are the credentials): URLs are cut to scheme and host.
import { describeSkips, type SkipTally } from "./skips.ts";

/** Longest notice stored. */
const noticeMaxLength = 1000;

/** Every URL in `text` cut to its scheme and host; user info, path and query dropped. */
export function withoutUrlPaths(text: string): string {
  return text.replace(
    /\b([a-z][a-z0-9+.-]*):\/\/([^\s/?#]+)[^\s]*/gi,
    (_all, scheme, authority) => {
      const host = String(authority).split("@").at(-1) ?? "";
      return `${String(scheme).toLowerCase()}://${host}`;
    },
  );
}

/** The provider's message first, then what was skipped; null when there is nothing to say. */
export function composeNotice(providerMessage: string | null, skipped: SkipTally): string | null {
  const message = providerMessage ? withoutUrlPaths(providerMessage.trim()) : "";
  const text = [message, describeSkips(skipped)].filter(Boolean).join(". ");
  if (text.length === 0) return null;
  return text.length > noticeMaxLength ? `${text.slice(0, noticeMaxLength - 3)}...` : text;
}
