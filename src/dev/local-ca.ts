// `svc dev`'s local certificate authority: a CA made on this machine, trusted by the development
// server for webhook deliveries only, and a certificate it signs for localhost, 127.0.0.1 and ::1
// that the developer's receiver serves. ECDSA P-256 with SHA-256 (RFC 5280, RFC 5758).
import {
  createHash,
  createPrivateKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  sign,
  X509Certificate,
} from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  bitString,
  booleanTrue,
  explicit,
  implicit,
  objectIdentifier,
  octetString,
  sequence,
  set,
  time,
  tlv,
  unsignedInteger,
  utf8String,
} from "./der.ts";

export interface DevCertificates {
  /** The local CA's certificate (PEM): what the development server trusts for deliveries. */
  caFile: string;
  /** The receiver's certificate (PEM) for localhost, 127.0.0.1 and ::1, signed by the CA. */
  certFile: string;
  /** The receiver's private key (PEM, mode 0600). */
  keyFile: string;
  /** Whether this call made them (false: the ones already in the directory were still good). */
  issued: boolean;
}

const dayMs = 86_400_000;
const caLifetimeMs = 5 * 365 * dayMs;
const leafLifetimeMs = 365 * dayMs;
/** A certificate closer than this to its end is issued again. */
const renewBeforeMs = 7 * dayMs;
export const devCaSubject = "Svc development CA for this machine only - never production";
const receiverNames = { dns: ["localhost"], ip: ["127.0.0.1", "::1"] };

const ecdsaWithSha256 = sequence(objectIdentifier("1.2.840.10045.4.3.2"));

function name(commonName: string): Uint8Array {
  return sequence(set(sequence(objectIdentifier("2.5.4.3"), utf8String(commonName))));
}

function extension(oid: string, critical: boolean, value: Uint8Array): Uint8Array {
  return sequence(objectIdentifier(oid), ...(critical ? [booleanTrue()] : []), octetString(value));
}

/** The key identifier of RFC 5280 4.2.1.2 (1): SHA-1 of the public key's bits. */
function keyIdentifier(publicKey: KeyObject): Uint8Array {
  const spki = publicKey.export({ type: "spki", format: "der" });
  // A P-256 SPKI ends with the 65-byte uncompressed point: the subjectPublicKey's bits.
  return new Uint8Array(
    createHash("sha1")
      .update(spki.subarray(spki.length - 65))
      .digest(),
  );
}

function ipBytes(address: string): Uint8Array {
  if (address.includes(":")) {
    // Only "::1" is issued; a general IPv6 writer is not needed here.
    const bytes = new Uint8Array(16);
    bytes[15] = 1;
    return bytes;
  }
  return Uint8Array.from(address.split(".").map(Number));
}

interface CertificateInput {
  subject: string;
  issuer: string;
  publicKey: KeyObject;
  signingKey: KeyObject;
  issuerPublicKey: KeyObject;
  notBefore: Date;
  notAfter: Date;
  extensions: Uint8Array[];
}

function certificatePem(input: CertificateInput): string {
  const spki = new Uint8Array(input.publicKey.export({ type: "spki", format: "der" }));
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  const tbs = sequence(
    explicit(0, tlv(0x02, Uint8Array.of(2))),
    unsignedInteger(serial),
    ecdsaWithSha256,
    name(input.issuer),
    sequence(time(input.notBefore), time(input.notAfter)),
    name(input.subject),
    spki,
    explicit(
      3,
      sequence(
        ...input.extensions,
        extension("2.5.29.14", false, octetString(keyIdentifier(input.publicKey))),
        extension("2.5.29.35", false, sequence(implicit(0, keyIdentifier(input.issuerPublicKey)))),
      ),
    ),
  );
  const signature = new Uint8Array(sign("sha256", tbs, input.signingKey));
  const der = sequence(tbs, ecdsaWithSha256, bitString(signature));
  const base64 = Buffer.from(der).toString("base64");
  return `-----BEGIN CERTIFICATE-----\n${base64.match(/.{1,64}/g)?.join("\n")}\n-----END CERTIFICATE-----\n`;
}

function stillGood(file: string, now: Date): boolean {
  if (!existsSync(file)) return false;
  try {
    const certificate = new X509Certificate(readFileSync(file));
    return new Date(certificate.validTo).getTime() - now.getTime() > renewBeforeMs;
  } catch {
    return false;
  }
}

function writePrivate(file: string, text: string): void {
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/**
 * The local CA and the receiver certificate in `directory` (mode 0700), made when missing or
 * close to expiry; the CA is kept while it is good, so a receiver that trusts it keeps working.
 */
export function ensureDevCertificates(directory: string, now: Date): DevCertificates {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  chmodSync(directory, 0o700);
  const files = {
    caFile: join(directory, "ca.pem"),
    caKeyFile: join(directory, "ca-key.pem"),
    certFile: join(directory, "localhost.pem"),
    keyFile: join(directory, "localhost-key.pem"),
  };
  const notBefore = new Date(now.getTime() - 60_000);
  let issued = false;
  let caKey: KeyObject;
  if (stillGood(files.caFile, now) && existsSync(files.caKeyFile)) {
    caKey = createPrivateKey(readFileSync(files.caKeyFile));
  } else {
    const pair = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
    caKey = pair.privateKey;
    const caPem = certificatePem({
      subject: devCaSubject,
      issuer: devCaSubject,
      publicKey: pair.publicKey,
      signingKey: caKey,
      issuerPublicKey: pair.publicKey,
      notBefore,
      notAfter: new Date(now.getTime() + caLifetimeMs),
      extensions: [
        extension("2.5.29.19", true, sequence(booleanTrue(), tlv(0x02, Uint8Array.of(0)))),
        // keyCertSign and cRLSign (RFC 5280 4.2.1.3).
        extension("2.5.29.15", true, bitString(Uint8Array.of(0x06), 1)),
      ],
    });
    writePrivate(files.caKeyFile, caKey.export({ type: "pkcs8", format: "pem" }) as string);
    writeFileSync(files.caFile, caPem, { mode: 0o644 });
    issued = true;
  }
  if (issued || !stillGood(files.certFile, now) || !existsSync(files.keyFile)) {
    const pair = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
    const caPublicKey = new X509Certificate(readFileSync(files.caFile)).publicKey;
    const leafPem = certificatePem({
      subject: "localhost",
      issuer: devCaSubject,
      publicKey: pair.publicKey,
      signingKey: caKey,
      issuerPublicKey: caPublicKey,
      notBefore,
      notAfter: new Date(now.getTime() + leafLifetimeMs),
      extensions: [
        extension("2.5.29.19", true, sequence()),
        // digitalSignature.
        extension("2.5.29.15", true, bitString(Uint8Array.of(0x80), 7)),
        // serverAuth.
        extension("2.5.29.37", false, sequence(objectIdentifier("1.3.6.1.5.5.7.3.1"))),
        extension(
          "2.5.29.17",
          false,
          sequence(
            ...receiverNames.dns.map((dns) => implicit(2, new TextEncoder().encode(dns))),
            ...receiverNames.ip.map((ip) => implicit(7, ipBytes(ip))),
          ),
        ),
      ],
    });
    writePrivate(files.keyFile, pair.privateKey.export({ type: "pkcs8", format: "pem" }) as string);
    writeFileSync(files.certFile, leafPem, { mode: 0o644 });
    issued = true;
  }
  return { caFile: files.caFile, certFile: files.certFile, keyFile: files.keyFile, issued };
}
