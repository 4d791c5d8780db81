// A throwaway certificate authority made by the tests themselves (openssl), so HTTPS receivers
// on loopback are trusted by the service only through its deliveryCaFile setting.
import { join } from "node:path";
import { makeTempDir } from "./temp.ts";

export interface CertFiles {
  certFile: string;
  keyFile: string;
}

export interface TestPki {
  /** PEM of the CA: what `deliveryCaFile` points at. */
  caFile: string;
  /** A leaf signed by the CA for `names` (DNS names or IP addresses). */
  issue(names: string[], options?: { expired?: boolean }): Promise<CertFiles>;
  /** A certificate that signs itself (no CA vouches for it). */
  selfSigned(names: string[]): Promise<CertFiles>;
}

/** Names every loopback receiver answers for. */
export const loopbackNames = ["localhost", "hooks.example.test", "127.0.0.1", "::1"];

async function openssl(args: string[], cwd: string): Promise<void> {
  const child = Bun.spawn(["openssl", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  const code = await child.exited;
  if (code !== 0) {
    throw new Error(`openssl ${args[0]} failed: ${await new Response(child.stderr).text()}`);
  }
}

function subjectAltNames(names: string[]): string {
  const isIp = (name: string) => /^[\d.]+$/.test(name) || name.includes(":");
  return `subjectAltName=${names.map((n) => (isIp(n) ? `IP:${n}` : `DNS:${n}`)).join(",")}`;
}

const ecKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];

export async function createTestPki(): Promise<TestPki> {
  const dir = makeTempDir("svc-pki");
  await openssl(
    [
      "req",
      "-x509",
      ...ecKey,
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
      "-days",
      "2",
      "-subj",
      "/CN=Svc Test CA",
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign",
    ],
    dir,
  );
  let serial = 0;
  return {
    caFile: join(dir, "ca.pem"),
    async issue(names, options = {}) {
      const base = `leaf-${++serial}`;
      await Bun.write(join(dir, `${base}.ext`), `${subjectAltNames(names)}\n`);
      await openssl(
        [
          "req",
          ...ecKey,
          "-keyout",
          `${base}.key`,
          "-out",
          `${base}.csr`,
          "-subj",
          `/CN=${names[0]}`,
        ],
        dir,
      );
      await openssl(
        [
          "x509",
          "-req",
          "-in",
          `${base}.csr`,
          "-CA",
          "ca.pem",
          "-CAkey",
          "ca.key",
          "-set_serial",
          String(1000 + serial),
          "-out",
          `${base}.pem`,
          // A negative validity ends before it starts: the certificate is already expired.
          "-days",
          options.expired ? "-1" : "1",
          "-extfile",
          `${base}.ext`,
        ],
        dir,
      );
      return { certFile: join(dir, `${base}.pem`), keyFile: join(dir, `${base}.key`) };
    },
    async selfSigned(names) {
      const base = `self-${++serial}`;
      await openssl(
        [
          "req",
          "-x509",
          ...ecKey,
          "-keyout",
          `${base}.key`,
          "-out",
          `${base}.pem`,
          "-days",
          "1",
          "-subj",
          `/CN=${names[0]}`,
          "-addext",
          subjectAltNames(names),
        ],
        dir,
      );
      return { certFile: join(dir, `${base}.pem`), keyFile: join(dir, `${base}.key`) };
    },
  };
}
