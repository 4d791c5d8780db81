// UUIDs are case-insensitive on input (RFC 9562 section 4: "treated as case insensitive on
// input"); Svc stores and answers them in lower case. A UUID written with upper-case digits as a
// whole path segment or a whole query value is lowered before routing, so
// `/v1/accounts/01A2…` reads the same account as `/v1/accounts/01a2…` (and shares its remembered
// answer, api/middleware/answer-lane.ts) in every route of /v1 and the portal, without each schema
// having to know. Anything else in the URL (cursors, names) is left as it is.
const upperUuid =
  /(?<=[/=])(?=[0-9a-f-]*[A-F])[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}(?=[/?&#]|$)/g;
const upperHexDigit = /[A-F]/;

/** The request with its UUIDs in lower case; the same request when it has none in upper case. */
export function withCanonicalIds(request: Request): Request {
  const url = request.url;
  // Most URLs hold no upper-case hex digit at all, and then nothing can match: one cheap scan.
  if (!upperHexDigit.test(url)) return request;
  const canonical = url.replace(upperUuid, (uuid) => uuid.toLowerCase());
  return canonical === url ? request : new Request(canonical, request);
}
