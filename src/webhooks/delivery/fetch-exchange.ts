// A delivery's request over Bun's fetch, the default transport: about two thirds of node:https's
// CPU per request (BENCHMARKS.md, 2026-12-04). One fetch session per server name, each with the
// trusted roots given once (a request's own `tls.ca` costs a parse per request) and that name as
// SNI and the name the certificate is checked against; the URL's host is the checked address, so
// nothing is resolved again. HTTP/1.1 only, redirects are not followed, nothing is
// decompressed, and the response body is never read: a small one is discarded so the connection
// is reused, anything else is cancelled, which closes the connection.
import { discardsBody, type Exchange } from "./exchange.ts";

/**
 * Requests Bun's fetch has under way at once in a process (Bun 1.4.5: the rest wait inside fetch,
 * their deadline running; test/webhooks/sender.test.ts holds the fact).
 */
export const fetchRequestsAtOnce = 256;

/** Server names whose sessions are kept at most (all closed and forgotten when full). */
const maxSessions = 1024;

/**
 * Bun's fetch errors name the URL they fetched (` fetching "https://…"`), which may hold a
 * token in its path or query: messages keep the cause only.
 */
function withoutUrl(error: NodeJS.ErrnoException): NodeJS.ErrnoException {
  const message = error.message
    .replace(/ fetching "[^"]*"/g, "")
    .replace(/\s*For more information, pass `verbose: true`.*$/s, "")
    .replace(/\bhttps?:\/\/\S+/g, "the endpoint");
  const clean: NodeJS.ErrnoException = new Error(message);
  clean.name = error.name;
  if (error.code !== undefined) clean.code = error.code;
  return clean;
}

export function createFetchExchange(options: {
  /** The certificates trusted (default roots plus the CA file); undefined: Bun's defaults. */
  trusted: string[] | undefined;
}): Exchange {
  const sessions = new Map<string, Bun.FetchSession>();
  const sessionFor = (serverName: string | undefined): Bun.FetchSession => {
    const key = serverName ?? "";
    let session = sessions.get(key);
    if (session) return session;
    if (sessions.size >= maxSessions) {
      for (const old of sessions.values()) old.close();
      sessions.clear();
    }
    const tls: NonNullable<Bun.FetchSessionInit["tls"]> = {};
    if (options.trusted) tls.ca = options.trusted;
    if (serverName !== undefined) tls.serverName = serverName;
    session = new Bun.FetchSession({ tls });
    sessions.set(key, session);
    return session;
  };
  return {
    transport: "fetch",
    start({ address, target, headers, body }, events) {
      headers.Host = target.hostHeader;
      const controller = new AbortController();
      const host = address.includes(":") ? `[${address}]` : address;
      // A literal address is its own name: the certificate is checked against it.
      const session = sessionFor(target.literal ? undefined : target.hostname);
      session
        .fetch(`https://${host}:${target.port}${target.path}`, {
          method: "POST",
          body,
          headers,
          redirect: "manual",
          decompress: false,
          // HTTP/1.1 always, as node:https: no HTTP/2 or HTTP/3 flag of Bun's, and no Alt-Svc
          // answer, moves a delivery to another protocol or another place.
          protocol: "http1.1",
          signal: controller.signal,
        })
        .then(
          (response) => {
            events.answered(response.status);
            if (discardsBody(response.headers.get("content-length"))) {
              response.arrayBuffer().then(
                () => events.ended(),
                () => events.ended(),
              );
            } else {
              response.body?.cancel().catch(() => {});
              events.ended();
            }
          },
          (error: NodeJS.ErrnoException) => events.failed(withoutUrl(error)),
        );
      return (reason) => controller.abort(reason);
    },
    close() {
      for (const session of sessions.values()) session.close();
      sessions.clear();
    },
  };
}
