import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig, processGivenSettings } from "../src/config/config.ts";
import { makeTempDir } from "./support/temp.ts";

function dirWithFile(contents: unknown): string {
  const dir = makeTempDir();
  writeFileSync(
    join(dir, "svc.json"),
    typeof contents === "string" ? contents : JSON.stringify(contents),
  );
  return dir;
}

function configError(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("config precedence: defaults < file < SVC_* env < flags", () => {
  test("with nothing set, the embedded defaults apply (./data, 127.0.0.1:8080, http://localhost:8080)", () => {
    const cwd = makeTempDir();
    const config = loadConfig({ env: {}, cwd });
    expect(config.dataDir).toBe(join(cwd, "data"));
    expect(config.host).toBe("127.0.0.1");
    expect(config.port).toBe(8080);
    expect(config.baseUrl).toBe("http://localhost:8080");
    expect(config.syncSchedule).toBe("*/15 * * * *");
    expect(config.retentionDays).toBe(30);
    expect(config.unsafeAllowPrivateTargets).toBe(false);
    expect(config.apiRateLimitPerMinute).toBe(600);
  });

  test("the config file in the data dir overrides defaults", () => {
    const dir = dirWithFile({ port: 9000, retentionDays: 7, baseUrl: "https://api.example.com/" });
    const config = loadConfig({ env: {}, cwd: dir, flags: { dataDir: dir } });
    expect(config.port).toBe(9000);
    expect(config.retentionDays).toBe(7);
    expect(config.baseUrl).toBe("https://api.example.com");
    expect(config.configFile).toBe(join(dir, "svc.json"));
  });

  test("SVC_* environment overrides the file", () => {
    const dir = dirWithFile({ port: 9000 });
    const config = loadConfig({ env: { SVC_PORT: "9100", SVC_DATA_DIR: dir }, cwd: "/" });
    expect(config.port).toBe(9100);
  });

  test("flags override the environment", () => {
    const dir = dirWithFile({ port: 9000 });
    const config = loadConfig({
      env: { SVC_PORT: "9100" },
      cwd: dir,
      flags: { dataDir: dir, port: "9200" },
    });
    expect(config.port).toBe(9200);
  });

  test("--data-dir wins over SVC_DATA_DIR and decides which svc.json is read", () => {
    const fromFlag = dirWithFile({ port: 9001 });
    const fromEnv = dirWithFile({ port: 9002 });
    const config = loadConfig({
      env: { SVC_DATA_DIR: fromEnv },
      cwd: "/",
      flags: { dataDir: fromFlag },
    });
    expect(config.dataDir).toBe(fromFlag);
    expect(config.port).toBe(9001);
  });

  test("an explicit --config file is read instead of <data dir>/svc.json and may name the data dir", () => {
    const dir = makeTempDir();
    const file = join(dir, "elsewhere.json");
    writeFileSync(file, JSON.stringify({ dataDir: "./state", port: 7000 }));
    const config = loadConfig({ env: {}, cwd: dir, configFile: "elsewhere.json" });
    expect(config.dataDir).toBe(join(dir, "state"));
    expect(config.port).toBe(7000);
  });

  test("the default base URL follows a changed port", () => {
    expect(loadConfig({ env: { SVC_PORT: "9999" }, cwd: makeTempDir() }).baseUrl).toBe(
      "http://localhost:9999",
    );
  });

  test("booleans and IP addresses are read from their text form", () => {
    const config = loadConfig({
      env: {
        SVC_UNSAFE_ALLOW_PRIVATE_TARGETS: "true",
        SVC_DELIVERY_SOURCE_IP: "::ffff:203.0.113.7",
      },
      cwd: makeTempDir(),
    });
    expect(config.unsafeAllowPrivateTargets).toBe(true);
    expect(config.deliverySourceIp).toBe("203.0.113.7");
  });
});

describe("billingUrl (where owners update payment details)", () => {
  test("is unset by default and taken from SVC_BILLING_URL or --billing-url, query kept", () => {
    const cwd = makeTempDir();
    expect(loadConfig({ env: {}, cwd }).billingUrl).toBeUndefined();
    expect(
      loadConfig({ env: { SVC_BILLING_URL: " https://billing.example.com/pay?a=1 " }, cwd })
        .billingUrl,
    ).toBe("https://billing.example.com/pay?a=1");
    expect(
      loadConfig({ env: {}, cwd, flags: { billingUrl: "http://billing.internal/" } }).billingUrl,
    ).toBe("http://billing.internal/");
  });
});

describe("a bad value stops start-up with one line naming the key", () => {
  const cwd = makeTempDir();
  test.each([
    [{ SVC_PORT: "abc" }, /^SVC_PORT="abc": must be a whole number$/],
    [{ SVC_PORT: "70000" }, /^SVC_PORT="70000": must be at most 65535$/],
    [{ SVC_BASE_URL: "not a url" }, /^SVC_BASE_URL=.*must be an absolute URL/],
    [{ SVC_BASE_URL: "ftp://example.com" }, /^SVC_BASE_URL=.*must use http or https/],
    [
      { SVC_BASE_URL: "https://user:pw@example.com" },
      /^SVC_BASE_URL=.*must not contain credentials/,
    ],
    [
      { SVC_DELIVERY_SOURCE_IP: "300.1.1.1" },
      /^SVC_DELIVERY_SOURCE_IP=.*must be an IPv4 or IPv6 address/,
    ],
    [{ SVC_SYNC_SCHEDULE: "every now and then" }, /^SVC_SYNC_SCHEDULE=.*must be a cron pattern/],
    [{ SVC_RETENTION_DAYS: "0" }, /^SVC_RETENTION_DAYS="0": must be at least 1$/],
    [{ SVC_SMTP_URL: "http://mail.example.com" }, /^SVC_SMTP_URL=.*smtp:\/\/ or smtps:\/\//],
    [{ SVC_MAIL_FROM: "nobody" }, /^SVC_MAIL_FROM=.*e-mail address/],
    [{ SVC_BILLING_URL: "billing page" }, /^SVC_BILLING_URL=.*must be an absolute URL/],
    [{ SVC_BILLING_URL: "mailto:pay@example.com" }, /^SVC_BILLING_URL=.*must use http or https/],
    [
      { SVC_BILLING_URL: "https://user:pw@billing.example.com" },
      /^SVC_BILLING_URL=.*must not contain credentials/,
    ],
    [{ SVC_LOG_LEVEL: "loud" }, /^SVC_LOG_LEVEL="loud": /],
    [
      { SVC_TRUSTED_PROXIES: "10.0.0.1, proxy.example.com" },
      /^SVC_TRUSTED_PROXIES=.*"proxy.example.com" is not an IP address or a CIDR range/,
    ],
    [{ SVC_TRUSTED_PROXIES: "10.0.0.0/33" }, /^SVC_TRUSTED_PROXIES=.*"10.0.0.0\/33" is not/],
    [{ SVC_UNSAFE_ALLOW_PRIVATE_TARGETS: "maybe" }, /^SVC_UNSAFE_ALLOW_PRIVATE_TARGETS="maybe": /],
    [
      { SVC_TLS_CERT_FILE: "/nonexistent/cert.pem" },
      /SVC_TLS_CERT_FILE: file \/nonexistent\/cert.pem does not exist/,
    ],
  ])("%p is refused", (env, pattern) => {
    const message = configError(() => loadConfig({ env, cwd }));
    expect(message).toMatch(pattern);
    expect(message.split("\n")).toHaveLength(1);
  });

  test.each([
    [
      "mysql://svc:s3cret-pw@db.example.com/svc",
      /must start with postgres:\/\/ or postgresql:\/\//,
    ],
    ["postgres://svc:s3cret-pw@db.example.com", /must name the database/],
    ["postgres://svc:s3cret-pw@db.example.com/svc?sslmode=sometimes", /sslmode must be one of/],
    ["not a url s3cret-pw", /must be a URL such as postgres:\/\//],
  ])("a bad database URL (%p) is refused without ever showing its password", (url, pattern) => {
    const message = configError(() => loadConfig({ env: { SVC_DATABASE_URL: url }, cwd }));
    expect(message).toMatch(/^SVC_DATABASE_URL=/);
    expect(message).toMatch(pattern);
    expect(message).not.toContain("s3cret-pw");
  });

  test("a good database URL is taken as written, sslmode included; the pool defaults to 10", () => {
    const url =
      "postgresql://svc:pw@db.example.com:5432/svc?sslmode=verify-full&sslrootcert=/etc/ca.pem";
    const config = loadConfig({ env: { SVC_DATABASE_URL: url }, cwd });
    expect(config.databaseUrl).toBe(url);
    expect(config.databasePoolSize).toBe(10);
    expect(loadConfig({ env: {}, cwd }).databaseUrl).toBeUndefined();
  });

  test("a flag's error names the flag", () => {
    expect(configError(() => loadConfig({ env: {}, cwd, flags: { port: "-1" } }))).toBe(
      '--port="-1": must be at least 0',
    );
  });

  test("a file's error names the file and the key", () => {
    const dir = dirWithFile({ port: "eighty" });
    expect(configError(() => loadConfig({ env: {}, cwd: dir, flags: { dataDir: dir } }))).toBe(
      `${join(dir, "svc.json")}: port="eighty": must be a whole number`,
    );
  });

  test("an unknown key in the file is refused (catches typos)", () => {
    const dir = dirWithFile({ bseUrl: "https://x.example.com" });
    expect(configError(() => loadConfig({ env: {}, cwd: dir, flags: { dataDir: dir } }))).toMatch(
      /unknown key "bseUrl"/,
    );
  });

  test("a file that is not JSON is refused", () => {
    const dir = dirWithFile("{ port: 1 ");
    expect(configError(() => loadConfig({ env: {}, cwd: dir, flags: { dataDir: dir } }))).toMatch(
      /not valid JSON/,
    );
  });

  test("a TLS certificate without a key is refused", () => {
    const dir = makeTempDir();
    const cert = join(dir, "cert.pem");
    writeFileSync(cert, "x");
    expect(configError(() => loadConfig({ env: { SVC_TLS_CERT_FILE: cert }, cwd: dir }))).toMatch(
      /set both/,
    );
  });

  test("dataDir inside the data dir's own svc.json is refused", () => {
    const dir = dirWithFile({ dataDir: "/elsewhere" });
    mkdirSync(join(dir, "x"), { recursive: true });
    expect(configError(() => loadConfig({ env: {}, cwd: dir, flags: { dataDir: dir } }))).toMatch(
      /cannot be set inside the data dir/,
    );
  });
});

describe("trustedProxies", () => {
  test("is empty by default: the TCP peer is the client", () => {
    expect(loadConfig({ env: {}, cwd: makeTempDir() }).trustedProxies).toEqual([]);
  });

  test("takes addresses and CIDR ranges, separated by commas or spaces (env, flags) or as a JSON array (file), normalised", () => {
    const fromEnv = loadConfig({
      env: { SVC_TRUSTED_PROXIES: "127.0.0.1, 10.0.0.0/8  ::ffff:192.0.2.1,2001:db8::/32" },
      cwd: makeTempDir(),
    });
    expect(fromEnv.trustedProxies).toEqual([
      "127.0.0.1/32",
      "10.0.0.0/8",
      "192.0.2.1/32",
      "2001:db8::/32",
    ]);
    const dir = dirWithFile({ trustedProxies: ["::1"] });
    const fromFile = loadConfig({ env: {}, cwd: dir, flags: { dataDir: dir } });
    expect(fromFile.trustedProxies).toEqual(["::1/128"]);
    const fromFlag = loadConfig({
      env: {},
      cwd: makeTempDir(),
      flags: { trustedProxies: "172.16.0.0/12" },
    });
    expect(fromFlag.trustedProxies).toEqual(["172.16.0.0/12"]);
  });

  test("a file value that is not a list or a string is refused", () => {
    const dir = dirWithFile({ trustedProxies: 10 });
    const message = configError(() => loadConfig({ env: {}, cwd: dir, flags: { dataDir: dir } }));
    expect(message).toMatch(/trustedProxies=10: must be a list of IP addresses or CIDR ranges/);
  });
});

describe("the settings svc serve shares with the other commands", () => {
  test("flags and environment values are shared, not the file's, and never a URL's password", () => {
    const cwd = makeTempDir();
    mkdirSync(join(cwd, "data"));
    writeFileSync(join(cwd, "data", "svc.json"), JSON.stringify({ retentionDays: 9 }));
    const config = loadConfig({
      cwd,
      flags: { port: "9191", unsafeAllowPrivateTargets: true },
      env: {
        SVC_DELIVERY_SOURCE_IP: "203.0.113.7",
        SVC_DATABASE_URL: "postgres://svc:secret@db.internal:5432/svc",
        SVC_SMTP_URL: "smtp://mail.internal:25",
      },
    });
    expect(processGivenSettings(config)).toEqual({
      settings: {
        port: 9191,
        deliverySourceIp: "203.0.113.7",
        unsafeAllowPrivateTargets: true,
        smtpUrl: "smtp://mail.internal:25",
      },
      origins: {
        port: "--port",
        deliverySourceIp: "SVC_DELIVERY_SOURCE_IP",
        unsafeAllowPrivateTargets: "--unsafe-allow-private-targets",
        smtpUrl: "SVC_SMTP_URL",
      },
    });
  });
});
