import { describe, expect, test } from "bun:test";
import { chmodSync, statSync } from "node:fs";
import { join } from "node:path";
import { loadMasterKey, MasterKeyError } from "../../src/crypto/master-key.ts";
import { makeTempDir } from "../support/temp.ts";

describe("master key", () => {
  test("is created at first start in the data dir with mode 0600 and reused afterwards", () => {
    const dir = makeTempDir();
    const first = loadMasterKey(dir, { env: {}, create: true });
    expect(first.bytes).toHaveLength(32);
    expect(statSync(join(dir, "master.key")).mode & 0o777).toBe(0o600);
    const again = loadMasterKey(dir, { env: {}, create: true });
    expect(Buffer.from(again.bytes).equals(Buffer.from(first.bytes))).toBe(true);
  });

  test("SVC_MASTER_KEY is used instead of a file, and no file is written", () => {
    const dir = makeTempDir();
    const key = loadMasterKey(dir, { env: { SVC_MASTER_KEY: "ab".repeat(32) }, create: true });
    expect(key.source).toBe("env");
    expect(Buffer.from(key.bytes).toString("hex")).toBe("ab".repeat(32));
    expect(() => statSync(join(dir, "master.key"))).toThrow();
  });

  test("a malformed SVC_MASTER_KEY is refused without echoing it", () => {
    try {
      loadMasterKey(makeTempDir(), { env: { SVC_MASTER_KEY: "short-secret" }, create: true });
      throw new Error("expected a failure");
    } catch (error) {
      expect(error).toBeInstanceOf(MasterKeyError);
      expect((error as Error).message).not.toContain("short-secret");
    }
  });

  test("a missing key that endpoints depend on is not silently replaced; the error says how to recover", () => {
    expect(() => loadMasterKey(makeTempDir(), { env: {}, create: false })).toThrow(
      /restore it from your backup or set SVC_MASTER_KEY/,
    );
  });

  test("a key file readable by others is tightened to 0600", () => {
    const dir = makeTempDir();
    loadMasterKey(dir, { env: {}, create: true });
    const path = join(dir, "master.key");
    chmodSync(path, 0o644);
    loadMasterKey(dir, { env: {}, create: false });
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});
