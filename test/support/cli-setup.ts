// The set-up the end-to-end delivery tests share: an installed data dir, an account and a
// verified endpoint made through the CLI, as an operator would, and another process writing to
// the same data (as `svc sync` does) so the servers under test have events to deliver.
import { expect } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../src/config/config.ts";
import { silentLogger } from "../../src/log/log.ts";
import { openServices, type Services } from "../../src/server/services.ts";
import { compiledBinary, runBinary } from "./binary.ts";
import { runSvc } from "./cli.ts";
import { engineEnvFor } from "./engine.ts";
import type { Receiver } from "./receiver.ts";
import { makeTempDir } from "./temp.ts";
import { lastVerificationCode, testCertificates } from "./webhooks.ts";

/**
 * The compiled binary, a fresh working directory (named after `dirPrefix`), the certificate of a
 * loopback receiver, and the environment that lets the binary deliver to it (private targets
 * allowed, the receiver's CA trusted), with `extraEnv` on top.
 */
export async function deliveringBinary(dirPrefix: string, extraEnv: Record<string, string> = {}) {
  const binary = await compiledBinary();
  const { pki, cert } = await testCertificates();
  const cwd = makeTempDir(dirPrefix);
  const env = {
    SVC_UNSAFE_ALLOW_PRIVATE_TARGETS: "true",
    SVC_DELIVERY_CA_FILE: pki.caFile,
    ...extraEnv,
  };
  return { binary, cert, cwd, env };
}

interface JsonRun {
  code: number;
  stdout: string;
  stderr: string;
  json<T = unknown>(): T;
}

/** `svc <argv> --json`, in one working directory and environment. */
export type JsonSvc = (...argv: string[]) => Promise<JsonRun>;

/** `svc <argv> --json` through the compiled binary. */
export function binarySvc(binary: string, cwd: string, env: Record<string, string>): JsonSvc {
  return async (...argv) => {
    const run = await runBinary(binary, [...argv, "--json"], cwd, env);
    return { ...run, json: <T>() => JSON.parse(run.stdout) as T };
  };
}

/** `svc <argv> --json` run in this process (the same commands, without a process start). */
export function inProcessSvc(cwd: string, env: Record<string, string>): JsonSvc {
  return (...argv) => runSvc([...argv, "--json"], { cwd, env });
}

/**
 * `svc migrate` (only serve, setup and migrate create a data dir; every other command refuses a
 * missing one), an account for `email`, and an endpoint at `url` verified with the code the
 * receiver got. Migrate, send-code and verify must each exit 0.
 */
export async function verifiedEndpointThroughCli(
  svc: JsonSvc,
  receiver: Receiver,
  email: string,
  url: string,
): Promise<{ accountId: string; endpointId: string }> {
  expect((await svc("migrate")).code).toBe(0);
  const accountId = (await svc("accounts", "create", "--email", email)).json<{ id: string }>().id;
  const endpointId = (await svc("endpoints", "add", "--account", accountId, "--url", url)).json<{
    endpoint: { id: string };
  }>().endpoint.id;
  expect((await svc("endpoints", "send-code", endpointId)).code).toBe(0);
  expect((await svc("endpoints", "verify", endpointId, lastVerificationCode(receiver))).code).toBe(
    0,
  );
  return { accountId, endpointId };
}

/** Another process on the data of `cwd` (as `svc sync` is): what it writes, the servers send. */
export async function openWriter(cwd: string): Promise<Services> {
  const env = await engineEnvFor(cwd);
  return openServices(loadConfig({ env, cwd, flags: { dataDir: join(cwd, "data") } }), {
    log: silentLogger,
  });
}
