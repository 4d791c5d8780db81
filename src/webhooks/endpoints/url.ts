// Registration rules for a webhook URL (spec 2 "Webhook endpoint", 4 "Requirements on a
// registered endpoint", 7): HTTPS on 443, no credentials, public addresses only. Decimal,
// octal, hex and short IPv4 spellings are normalised by the WHATWG URL parser before the
// address check, so `https://2130706433/` is judged as 127.0.0.1.
import { ApiError } from "../../core/errors.ts";
import { checkAddress, isIpLiteral } from "../../net/address-guard.ts";
import {
  type AddressRuleOptions,
  BlockedAddressError,
  resolveCheckedAddresses,
} from "../../net/checked-addresses.ts";
import { ResolveError, type Resolver } from "../../net/resolver.ts";

const maxUrlLength = 2048;

/** `allowPrivate` (`unsafeAllowPrivateTargets`) also admits any port (tests, development). */
export type UrlRuleOptions = AddressRuleOptions;

function refuse(message: string): never {
  throw new ApiError("invalid_url", message);
}

/** Checks the URL's shape and returns it normalised; throws ApiError invalid_url. */
export function parseEndpointUrl(input: string, options: UrlRuleOptions): URL {
  const text = input.trim();
  if (text.length === 0) refuse("url is required.");
  if (text.length > maxUrlLength) refuse(`url must be at most ${maxUrlLength} characters.`);
  if (!URL.canParse(text)) refuse(`url "${text}" is not a valid absolute URL.`);
  const url = new URL(text);
  if (url.protocol !== "https:") {
    refuse(
      `url must use https://; ${url.protocol.replace(/:$/, "")} is refused (plain HTTP is never allowed).`,
    );
  }
  if (url.username || url.password) refuse("url must not contain a user name or password.");
  if (url.hash) refuse("url must not have a #fragment (it is never sent to the server).");
  // URL drops an explicit :443 for https, so any port left here is a non-standard one.
  if (url.port !== "" && !options.allowPrivate) {
    refuse(`url must use port 443; port ${url.port} is refused.`);
  }
  if (!isIpLiteral(url.hostname) && !url.hostname.includes(".") && !options.allowPrivate) {
    refuse(`url host "${url.hostname}" is not a public host name.`);
  }
  return url;
}

/** What a developer whose receiver runs on their own machine can use instead. */
const localDevelopmentHint =
  "Developing on your own machine? Start the server with `svc dev` (it accepts loopback URLs on any port and issues a local certificate for your receiver), or run `svc listen` to forward your events to a local URL.";

/** Whether a refused URL points at this machine or a private network (a developer's receiver). */
function looksLocal(input: string): boolean {
  if (!URL.canParse(input.trim())) return false;
  const host = new URL(input.trim()).hostname.replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  return isIpLiteral(host) && !checkAddress(host).allowed;
}

/** Registration: the URL's rules plus its resolution, as one ApiError invalid_url on failure. */
export async function validateEndpointUrl(
  input: string,
  resolve: Resolver,
  options: UrlRuleOptions,
): Promise<URL> {
  try {
    const url = parseEndpointUrl(input, options);
    try {
      await resolveCheckedAddresses(url, resolve, options);
    } catch (error) {
      if (error instanceof BlockedAddressError)
        refuse(`url refused: ${error.message} ${localDevelopmentHint}`);
      if (error instanceof ResolveError) refuse(`url refused: ${error.message}.`);
      throw error;
    }
    return url;
  } catch (error) {
    if (
      error instanceof ApiError &&
      !error.message.includes(localDevelopmentHint) &&
      looksLocal(input)
    )
      refuse(`${error.message} ${localDevelopmentHint}`);
    throw error;
  }
}
