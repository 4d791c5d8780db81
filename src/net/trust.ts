// Whom outbound TLS trusts: the default roots plus an operator's CA file, as one secure context
// built once (passing `ca` per request costs a parse per request). Shared by the webhook sender
// (deliveryCaFile) and the bank providers.
import { readFileSync } from "node:fs";
import tls, { type SecureContext } from "node:tls";
import { ConfigError } from "../config/config.ts";

/** Default roots plus the PEM CAs in `caFile`; `setting` names the option in messages. */
export function trustContext(
  caFile: string | undefined,
  setting = "deliveryCaFile",
): SecureContext | undefined {
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
  try {
    return tls.createSecureContext({ ca: [...tls.rootCertificates, pem] });
  } catch (error) {
    throw new ConfigError(
      `${setting} ${caFile}: not a usable PEM CA bundle (${(error as Error).message})`,
    );
  }
}
