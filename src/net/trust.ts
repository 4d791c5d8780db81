// Whom outbound TLS trusts: the default roots plus an operator's CA file, read and checked once
// (passing `ca` per request costs a parse per request). Shared by the webhook sender
// (deliveryCaFile) and the bank providers.
import { readFileSync } from "node:fs";
import tls, { type SecureContext } from "node:tls";
import { ConfigError } from "../config/config.ts";

/**
 * The default roots plus the PEM CAs in `caFile`, as the certificates' text (for a fetch
 * session's `tls.ca`, which replaces the default roots when given); undefined without a file.
 * `setting` names the option in messages.
 */
export function trustedCertificates(
  caFile: string | undefined,
  setting = "deliveryCaFile",
): string[] | undefined {
  if (!caFile) return undefined;
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
  const certificates = [...tls.rootCertificates, pem];
  try {
    // Parsed here once, so a file that is not a usable bundle stops start-up, not a delivery.
    tls.createSecureContext({ ca: certificates });
  } catch (error) {
    throw new ConfigError(
      `${setting} ${caFile}: not a usable PEM CA bundle (${(error as Error).message})`,
    );
  }
  return certificates;
}

/** Default roots plus the PEM CAs in `caFile`, as one secure context; `setting` as above. */
export function trustContext(
  caFile: string | undefined,
  setting = "deliveryCaFile",
): SecureContext | undefined {
  const certificates = trustedCertificates(caFile, setting);
  return certificates ? tls.createSecureContext({ ca: certificates }) : undefined;
}
