// svc dev's local CA (src/dev/local-ca.ts): certificates written in-process that TLS stacks
// accept, kept while good, renewed before they run out.
import { describe, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { devCaSubject, ensureDevCertificates } from "../../src/dev/local-ca.ts";
import { makeTempDir } from "../support/temp.ts";

const now = new Date("2026-03-01T12:00:00.000Z");
const read = (file: string) => new X509Certificate(readFileSync(file));

describe("the local CA of svc dev", () => {
  test("issues a CA and a localhost certificate it signed, for localhost, 127.0.0.1 and ::1", () => {
    const files = ensureDevCertificates(join(makeTempDir(), "dev-ca"), now);
    const ca = read(files.caFile);
    const leaf = read(files.certFile);
    expect(ca.ca).toBe(true);
    expect(ca.subject).toBe(`CN=${devCaSubject}`);
    expect(leaf.ca).toBe(false);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.subjectAltName).toBe(
      "DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1",
    );
    expect(leaf.keyUsage).toEqual(["1.3.6.1.5.5.7.3.1"]);
    expect(new Date(leaf.validFrom).getTime()).toBeLessThanOrEqual(now.getTime());
    expect(statSync(files.keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(files.caFile, "..", "ca-key.pem")).mode & 0o777).toBe(0o600);
  });

  test("a TLS client that trusts only the CA accepts a server with the certificate", async () => {
    const files = ensureDevCertificates(join(makeTempDir(), "dev-ca"), new Date());
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { cert: Bun.file(files.certFile), key: Bun.file(files.keyFile) },
      fetch: () => new Response("ok"),
    });
    try {
      for (const host of ["127.0.0.1", "localhost"]) {
        const response = await fetch(`https://${host}:${server.port}/`, {
          tls: { ca: readFileSync(files.caFile, "utf8") },
        });
        expect(await response.text()).toBe("ok");
      }
      await expect(fetch(`https://127.0.0.1:${server.port}/`)).rejects.toThrow();
    } finally {
      await server.stop(true);
    }
  });

  test("run again it keeps both while they are good, and renews the certificate near its end but keeps the CA", () => {
    const dir = join(makeTempDir(), "dev-ca");
    const first = ensureDevCertificates(dir, now);
    const caPem = readFileSync(first.caFile, "utf8");
    const leafPem = readFileSync(first.certFile, "utf8");
    const again = ensureDevCertificates(dir, new Date(now.getTime() + 86_400_000));
    expect(again.issued).toBe(false);
    expect(readFileSync(again.certFile, "utf8")).toBe(leafPem);
    const late = new Date(now.getTime() + 360 * 86_400_000);
    const renewed = ensureDevCertificates(dir, late);
    expect(renewed.issued).toBe(true);
    expect(readFileSync(renewed.caFile, "utf8")).toBe(caPem);
    expect(readFileSync(renewed.certFile, "utf8")).not.toBe(leafPem);
    expect(read(renewed.certFile).verify(read(renewed.caFile).publicKey)).toBe(true);
  });
});
