// Whom outbound TLS trusts: the default roots plus an operator's CA file, read and checked once
// at start-up (passing `ca` per request costs a parse per request). Shared by the webhook sender
// (deliveryCaFile) and the bank providers.
import { readFileSync } from "node:fs";
import tls, { type SecureContext } from "node:tls";
import { ConfigError } from "../config/config.ts";

/** The default roots plus the PEM text of `caFile`; `setting` names the option in messages. */
function caBundle(caFile: string, setting: string): string[] {
  let pem: string;
  try {
    pem = readFileSync(caFile, "utf8");
  } catch (error) {
    throw new ConfigError(
      `${setting} ${caFile}: cannot be read (${(error as NodeJS.ErrnoException).code})`,
    );
  }
  if (!pem.includes("-----BEGIN CERTIFICATE-----")) {
    throw new ConfigError(`${setting} ${caFile}: holds no PEM certificate`);
  }
  return [...tls.rootCertificates, pem];
}

/** The bundle as one secure context; a file that is not a usable bundle stops start-up. */
function secureContextOf(bundle: string[], caFile: string, setting: string): SecureContext {
  try {
    return tls.createSecureContext({ ca: bundle });
  } catch (error) {
    throw new ConfigError(
      `${setting} ${caFile}: not a usable PEM CA bundle (${(error as Error).message})`,
    );
  }
}

/**
 * The default roots plus the PEM CAs in `caFile`, as the certificates' text (for a fetch
 * session's `tls.ca`, which replaces the default roots when given), checked as a bundle once so
 * a bad file stops start-up, not a delivery; undefined without a file.
 */
export function trustedCertificates(
  caFile: string | undefined,
  setting = "deliveryCaFile",
): string[] | undefined {
  if (!caFile) return undefined;
  const bundle = caBundle(caFile, setting);
  secureContextOf(bundle, caFile, setting);
  return bundle;
}

/** Default roots plus the PEM CAs in `caFile`, as one secure context built once. */
export function trustContext(
  caFile: string | undefined,
  setting = "deliveryCaFile",
): SecureContext | undefined {
  if (!caFile) return undefined;
  return secureContextOf(caBundle(caFile, setting), caFile, setting);
}
