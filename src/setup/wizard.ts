// The interactive half of `svc setup`: asks, validates each answer as it is typed, confirms.
import type { Readable, Writable } from "node:stream";
import * as prompts from "@clack/prompts";
import { passwordProblem } from "../accounts/passwords.ts";
import { emailSchema } from "../accounts/service-accounts.ts";
import { validateConfigValue } from "../config/config.ts";
import type { SetupAnswers } from "./apply.ts";
import { SetupCancelled } from "./cancelled.ts";

export { SetupCancelled };

function answered<T>(value: T | symbol): Exclude<T, symbol> {
  if (prompts.isCancel(value)) throw new SetupCancelled("setup cancelled; nothing was written");
  return value as Exclude<T, symbol>;
}

export async function askSetupAnswers(
  defaults: Partial<SetupAnswers>,
  streams: { input?: Readable; output?: Writable },
): Promise<SetupAnswers> {
  const io = {
    ...(streams.input ? { input: streams.input } : {}),
    ...(streams.output ? { output: streams.output } : {}),
  };
  prompts.intro("Svc set-up", io);
  const baseUrl = answered(
    await prompts.text({
      ...io,
      message: "Public base URL (what API consumers and the portal use)",
      initialValue: defaults.baseUrl ?? "http://localhost:8080",
      validate: (value) => {
        const problem = validateConfigValue("baseUrl", value ?? "");
        return problem ? `The base URL ${problem}.` : undefined;
      },
    }),
  );
  const sourceIp = answered(
    await prompts.text({
      ...io,
      message:
        "Delivery source IP (the one address webhooks come from; receivers allow-list it). Empty to skip",
      initialValue: defaults.sourceIp ?? "",
      validate: (value) => {
        if (!value?.trim()) return undefined;
        const problem = validateConfigValue("deliverySourceIp", value);
        return problem ? `The address ${problem}.` : undefined;
      },
    }),
  );
  const dataDir = answered(
    await prompts.text({
      ...io,
      message: "Data directory (database, master key, config)",
      initialValue: defaults.dataDir ?? "./data",
      validate: (value) => (value?.trim() ? undefined : "The data directory is required."),
    }),
  );
  const adminEmail = answered(
    await prompts.text({
      ...io,
      message: "Operator e-mail (signs in to the portal)",
      initialValue: defaults.adminEmail ?? "",
      validate: (value) => {
        const parsed = emailSchema.safeParse(value ?? "");
        return parsed.success ? undefined : `The e-mail ${parsed.error.issues[0]?.message}.`;
      },
    }),
  );
  const adminPassword = answered(
    await prompts.password({
      ...io,
      message: "Operator password (at least 12 characters)",
      validate: (value) => {
        const problem = passwordProblem(value ?? "");
        return problem ? `The password ${problem}.` : undefined;
      },
    }),
  );
  const answers: SetupAnswers = {
    baseUrl: baseUrl.trim(),
    dataDir: dataDir.trim(),
    adminEmail: adminEmail.trim(),
    adminPassword,
    // An emptied answer removes the address; it was offered pre-filled from svc.json.
    sourceIp: sourceIp.trim() || null,
  };
  const go = answered(
    await prompts.confirm({
      ...io,
      message: `Write the configuration to ${answers.dataDir}/svc.json and create the database?`,
    }),
  );
  if (!go) throw new SetupCancelled("setup cancelled; nothing was written");
  return answers;
}
