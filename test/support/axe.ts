// axe-core run inside the real page (no critical or serious violations on any page).
// The script is read from node_modules and evaluated through the DevTools protocol (not a
// <script> tag, which the portal's CSP rightly refuses), so nothing is fetched from the network.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const axeSource = readFileSync(
  createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
  "utf8",
);

export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/** Runs axe on the page as it is now and returns its critical and serious findings. */
export async function seriousAxeFindings(
  page: Page,
  disabledRules: string[] = [],
): Promise<AxeFinding[]> {
  const hasAxe = await page.evaluate(() => "axe" in globalThis);
  if (!hasAxe) await page.evaluate(axeSource);
  const findings = await page.evaluate(async (disabled: string[]) => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is injected at run time.
    const axe = (globalThis as any).axe;
    const rules = Object.fromEntries(disabled.map((id) => [id, { enabled: false }]));
    const result = await axe.run(document, { rules, resultTypes: ["violations"] });
    // biome-ignore lint/suspicious/noExplicitAny: axe's result shape.
    return result.violations.map((violation: any) => ({
      id: violation.id,
      impact: violation.impact ?? "unknown",
      help: violation.help,
      // biome-ignore lint/suspicious/noExplicitAny: axe's node shape.
      targets: violation.nodes.map((node: any) => String(node.target)),
    }));
  }, disabledRules);
  return findings.filter(
    (finding: AxeFinding) => finding.impact === "critical" || finding.impact === "serious",
  );
}
