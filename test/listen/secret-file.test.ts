import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  ListenSecretError,
  listenSecretPath,
  loadOrCreateListenSecret,
} from "../../src/listen/secret-file.ts";
import { makeTempDir } from "../support/temp.ts";

describe("listen secret file", () => {
  test("is created once with mode 0600 in a 0700 directory and reused unchanged", () => {
    const path = join(makeTempDir(), "svc", "listen-secret");
    const first = loadOrCreateListenSecret(path);
    expect(first.created).toBe(true);
    expect(first.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, "..")).mode & 0o777).toBe(0o700);
    const second = loadOrCreateListenSecret(path);
    expect(second).toEqual({ secret: first.secret, created: false });
    expect(readFileSync(path, "utf8").trim()).toBe(first.secret);
  });

  test("a file readable by others is narrowed to 0600 when read", () => {
    const path = join(makeTempDir(), "listen-secret");
    writeFileSync(path, `whsec_${"a".repeat(43)}\n`, { mode: 0o644 });
    expect(loadOrCreateListenSecret(path).secret).toBe(`whsec_${"a".repeat(43)}`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  test("a file that does not hold a secret is refused, not overwritten", () => {
    const path = join(makeTempDir(), "listen-secret");
    writeFileSync(path, "nonsense\n", { mode: 0o600 });
    expect(() => loadOrCreateListenSecret(path)).toThrow(ListenSecretError);
    expect(readFileSync(path, "utf8")).toBe("nonsense\n");
  });

  test("the path is SVC_LISTEN_SECRET_FILE, else one file per server under XDG_CONFIG_HOME/svc or ~/.config/svc", () => {
    const api = new URL("https://svc.example.com/base/");
    expect(listenSecretPath({ SVC_LISTEN_SECRET_FILE: "/x/s", XDG_CONFIG_HOME: "/c" }, api)).toBe(
      "/x/s",
    );
    expect(listenSecretPath({ XDG_CONFIG_HOME: "/c", HOME: "/h" }, api)).toBe(
      "/c/svc/listen-secrets/https-svc.example.com-443",
    );
    expect(listenSecretPath({ HOME: "/h" }, new URL("http://[::1]:8080"))).toBe(
      "/h/.config/svc/listen-secrets/http-__1-8080",
    );
  });

  test("two servers get two different secrets; the same server (any path) the same one", () => {
    const env = { XDG_CONFIG_HOME: makeTempDir() };
    const secretOf = (url: string) =>
      loadOrCreateListenSecret(listenSecretPath(env, new URL(url))).secret;
    const first = secretOf("http://127.0.0.1:8080");
    expect(secretOf("http://127.0.0.1:8080/")).toBe(first);
    expect(secretOf("http://127.0.0.1:9090")).not.toBe(first);
    expect(secretOf("https://svc.example.com")).not.toBe(first);
    expect(secretOf("https://svc.example.com/base")).toBe(secretOf("https://svc.example.com:443"));
  });
});
