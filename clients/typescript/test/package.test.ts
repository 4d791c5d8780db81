// The package as a user installs it: `npm pack` builds it (ESM JavaScript and .d.ts) into a
// tarball, a fresh project installs the tarball with npm (openapi-fetch comes from the registry
// as its dependency), and the client then reads a real running server from Node and from Bun,
// and type-checks in the consumer's own TypeScript project.
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startApiHarness } from "../../../test/support/api.ts";
import { makeTempDir } from "../../../test/support/temp.ts";

const packageDir = join(import.meta.dir, "..");
const npm = Bun.which("npm");
const npmEnv = {
  ...process.env,
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
  npm_config_prefer_offline: "true",
};

async function run(argv: string[], cwd: string, env: Record<string, string | undefined> = npmEnv) {
  const child = Bun.spawn(argv, { cwd, env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}:\n${stderr}${stdout}`);
  return stdout;
}

const api = await startApiHarness();
afterAll(() => api.stop());
const tenant = await api.addTenant("package@example.com");

const consumerScript = `import { createSvcClient } from "@svc/client";
const svc = createSvcClient({ baseUrl: process.env.SVC_BASE_URL, apiKey: process.env.SVC_API_KEY });
const { data, error, response } = await svc.GET("/accounts");
console.log(JSON.stringify({ status: response.status, ids: data?.data.map((a) => a.account_id), error }));
`;

const consumerTypes = `import { createSvcClient, type Account } from "@svc/client";
const svc = createSvcClient({ baseUrl: "https://svc.example.com", apiKey: "svk_example" });
export async function names(): Promise<string[]> {
  const { data } = await svc.GET("/accounts/{account_id}", {
    params: { path: { account_id: "8a5b1c1e-7d0a-4c5e-9a55-0c3b7c1d2e3f" } },
  });
  const account: Account | undefined = data;
  // @ts-expect-error: the types came with the package, so a path that does not exist is an error
  await svc.GET("/acounts");
  return account ? [account.name] : [];
}
`;

describe.if(npm !== null)("@svc/client from npm pack", () => {
  let project: string;

  test("npm pack builds dist/ (JavaScript and declarations) and packs only it, the README and package.json", async () => {
    const out = makeTempDir("svc-client-pack");
    await run([npm as string, "pack", "--pack-destination", out, "--json"], packageDir);
    const tarball = readdirSync(out).find((name) => name.endsWith(".tgz"));
    expect(tarball).toBe("svc-client-0.1.0.tgz");
    const listing = (await run(["tar", "-tzf", join(out, tarball as string)], out)).split("\n");
    expect(listing.filter(Boolean).sort()).toEqual([
      "package/README.md",
      "package/dist/index.d.ts",
      "package/dist/index.js",
      "package/dist/schema.d.ts",
      "package/dist/schema.js",
      "package/package.json",
    ]);

    project = makeTempDir("svc-client-consumer");
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }),
    );
    await run([npm as string, "install", join(out, tarball as string)], project);
    expect(readdirSync(join(project, "node_modules"))).toContain("openapi-fetch");
  }, 120_000);

  test("installed in a fresh project, it reads the server's /v1 from Node and from Bun", async () => {
    writeFileSync(join(project, "consumer.mjs"), consumerScript);
    const env = {
      PATH: process.env.PATH,
      SVC_BASE_URL: api.server.baseUrl,
      SVC_API_KEY: tenant.key,
    };
    for (const runtime of ["node", process.execPath]) {
      const answer = JSON.parse(await run([runtime, "consumer.mjs"], project, env));
      expect({ runtime, ...answer }).toEqual({
        runtime,
        status: 200,
        ids: expect.arrayContaining(tenant.bank.accountIds),
      });
    }
  }, 60_000);

  test("its declarations type-check a consumer compiled as Node ESM: tsc exits 0, which is the whole assertion (a wrong path is an error)", async () => {
    writeFileSync(join(project, "consumer.ts"), consumerTypes);
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          noEmit: true,
          strict: true,
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          lib: ["es2022", "dom"],
          types: [],
        },
        files: ["consumer.ts"],
      }),
    );
    await run([join(packageDir, "node_modules", ".bin", "tsc"), "-p", "."], project);
  }, 60_000);
});
