// The operator's and consumer's docs stay true to the code: every metric is
// documented and every documented or alerted-on metric exists; the alert rules parse; the
// systemd unit passes systemd-analyze and keeps its hardening; the API guide lists every error
// code with its status; every relative link and anchor resolves.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { errorStatus } from "../../src/core/errors.ts";
import { drainTimeoutMs } from "../../src/server/runtime.ts";
import { stopGraceMs } from "../../src/webhooks/delivery/dispatcher.ts";
import { createTestServices } from "../support/services.ts";
import { makeTempDir } from "../support/temp.ts";

const root = resolve(import.meta.dir, "../..");
const read = (path: string) => readFileSync(join(root, path), "utf8");
const docs = readdirSync(join(root, "docs"))
  .filter((name) => name.endsWith(".md"))
  .map((name) => `docs/${name}`);

async function exposedFamilies(): Promise<string[]> {
  const services = await createTestServices();
  try {
    return (await services.metrics.registry.getMetricsAsJSON()).map((metric) => metric.name);
  } finally {
    await services.database.close();
  }
}

describe("metrics documentation", () => {
  test("every series /metrics exposes has a row in docs/metrics.md", async () => {
    const metricsDoc = read("docs/metrics.md");
    for (const name of await exposedFamilies()) expect(metricsDoc).toContain(`| \`${name}\` |`);
  });

  test("every svc_ series named in the docs and the alert rules exists", async () => {
    const families = new Set(await exposedFamilies());
    const texts = [...docs, "deploy/prometheus/svc-alerts.yml", "README.md"].map(read);
    const named = new Set(texts.flatMap((text) => text.match(/\bsvc_[a-z_]+[a-z]\b/g) ?? []));
    const unknown = [...named].filter(
      (name) => !families.has(name) && !families.has(name.replace(/_(bucket|count|sum)$/, "")),
    );
    // Not metric names: the session and bank-link cookies, the PostgreSQL channel of new
    // deliveries and the receiver kit's Python module.
    const notMetrics = ["svc_session", "svc_link", "svc_outbox", "svc_webhooks"];
    expect(unknown.filter((name) => !notMetrics.includes(name))).toEqual([]);
  });

  test("the alert rules parse, and each alert is explained in docs/metrics.md", () => {
    const rules = Bun.YAML.parse(read("deploy/prometheus/svc-alerts.yml")) as {
      groups: { name: string; rules: { alert: string; expr: string; labels: object }[] }[];
    };
    const alerts = rules.groups.flatMap((group) => group.rules);
    expect(alerts.length).toBeGreaterThanOrEqual(8);
    const metricsDoc = read("docs/metrics.md");
    for (const alert of alerts) {
      expect(alert.expr.length).toBeGreaterThan(0);
      expect(metricsDoc).toContain(`| \`${alert.alert}\` |`);
    }
  });
});

describe("systemd unit", () => {
  const unit = read("deploy/svc.service");

  test("runs svc serve as a dedicated user with its state directory and the hardening options", () => {
    for (const line of [
      "ExecStart=/usr/local/bin/svc serve",
      "User=svc",
      "StateDirectory=svc",
      "Environment=SVC_DATA_DIR=/var/lib/svc",
      "NoNewPrivileges=yes",
      "ProtectSystem=strict",
      "ProtectHome=yes",
      "PrivateTmp=yes",
      "PrivateDevices=yes",
      "CapabilityBoundingSet=",
      "SystemCallFilter=@system-service",
      "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX",
      "UMask=0077",
      "RestartPreventExitStatus=78",
    ]) {
      expect(unit.split("\n")).toContain(line);
    }
  });

  test("systemd-analyze verify accepts it", async () => {
    // verify checks that ExecStart exists: point it at an executable of this machine.
    const copy = join(makeTempDir("svc-unit"), "svc.service");
    writeFileSync(
      copy,
      unit.replace("ExecStart=/usr/local/bin/svc serve", `ExecStart=${process.execPath} serve`),
    );
    const child = Bun.spawn(["systemd-analyze", "verify", copy], {
      stderr: "pipe",
      stdout: "pipe",
    });
    const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});

describe("API guide", () => {
  test("lists every error code the API answers with its HTTP status", () => {
    const guide = read("docs/api-guide.md");
    const codes = [
      "not_authenticated",
      "invalid_api_key",
      "user_inactive",
      "demo_account",
      "connect_not_available",
      "subscription_lapsed",
      "invalid_request",
      "not_found",
      "rate_limited",
      "internal_error",
    ] as const;
    for (const code of codes) expect(guide).toContain(`| \`${code}\` | ${errorStatus[code]} |`);
  });

  test("states the retry schedule the dispatcher uses", async () => {
    const { retryDelaysMs } = await import("../../src/webhooks/delivery/retry-schedule.ts");
    const words = ["1 minute", "5 minutes", "30 minutes", "2 hours", "12 hours", "24 hours"];
    const minutes = [1, 5, 30, 120, 720, 1440];
    expect(retryDelaysMs.map((ms) => ms / 60_000)).toEqual(minutes);
    const guide = read("docs/api-guide.md");
    words.forEach((word, i) => {
      expect(guide).toContain(`| retry ${i + 1} | ${word} later |`);
    });
  });
});

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  for (const match of markdown.matchAll(/^#{1,6} (.+)$/gm)) {
    found.add(
      (match[1] as string)
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, "")
        .replace(/ /g, "-"),
    );
  }
  return found;
}

describe("links", () => {
  const files = [
    ...docs,
    "README.md",
    "examples/receiver/README.md",
    "clients/typescript/README.md",
  ];

  // Whoever clones the repository has only the repository: the README and docs carry the whole
  // contract in their own words, so a link that leaves it (another host, or a path above the
  // repository's root) would be a broken promise.
  test("no link in the README or docs/ leaves the repository", () => {
    const leaving: string[] = [];
    for (const file of files) {
      const text = read(file);
      const targets = [
        ...[...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string),
        ...[...text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((match) => match[1] as string),
        ...[...text.matchAll(/<([a-z][a-z0-9+.-]*:[^>\s]+)>/gi)].map((match) => match[1] as string),
      ];
      for (const target of targets) {
        const path = target.split("#")[0] as string;
        const outside =
          /^[a-z][a-z0-9+.-]*:/i.test(target) ||
          target.startsWith("//") ||
          (path !== "" && !resolve(dirname(join(root, file)), path).startsWith(`${root}/`));
        if (outside) leaving.push(`${file}: ${target}`);
      }
    }
    expect(leaving).toEqual([]);
  });

  test("every relative link and anchor in the docs resolves", () => {
    const broken: string[] = [];
    for (const file of files) {
      const text = read(file);
      for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1] as string;
        if (/^[a-z]+:/.test(target)) continue;
        const [path, anchor] = target.split("#") as [string, string | undefined];
        const targetFile =
          path === "" ? join(root, file) : resolve(dirname(join(root, file)), path);
        if (!existsSync(targetFile)) {
          broken.push(`${file}: ${target}`);
          continue;
        }
        if (anchor && !anchors(readFileSync(targetFile, "utf8")).has(anchor)) {
          broken.push(`${file}: ${target} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  test("the README links the operator's guide, the API guide and the receiver kit", () => {
    const readme = read("README.md");
    for (const link of [
      "docs/operator-guide.md",
      "docs/api-guide.md",
      "docs/metrics.md",
      "docs/security.md",
      "examples/receiver/README.md",
    ]) {
      expect(readme).toContain(`(${link}`);
    }
  });
});

describe("stopping", () => {
  test("README and the operator guide give the grace periods of a stop that the code uses", () => {
    const sendGrace = `${stopGraceMs / 1000} seconds`;
    const requestGrace = `${drainTimeoutMs / 1000} seconds`;
    expect(read("README.md")).toContain(`sends still running after ${sendGrace} are`);
    const guide = read("docs/operator-guide.md").replace(/\s+/g, " ");
    expect(guide).toContain(`lets requests under way finish (up to ${requestGrace})`);
    expect(guide).toContain(`gives webhook sends under way ${sendGrace} to finish`);
  });
});
