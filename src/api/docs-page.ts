// A readable API reference rendered from the OpenAPI document, served by the binary itself at
// /v1/docs: static HTML with inline CSS, no script and no CDN.
import type { OpenApiDocument } from "./openapi.ts";

// The document is plain JSON; walking it loosely is simpler than typing every OpenAPI shape.
type Json = Record<string, unknown>;

function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}

/** The little Markdown the descriptions use: paragraphs, **bold** and `code`. */
function inlineMarkdown(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
}

function paragraphs(text: string | undefined): string {
  if (!text) return "";
  return text
    .split(/\n\s*\n/)
    .map((block) => `<p>${inlineMarkdown(block.trim())}</p>`)
    .join("\n");
}

function refName(ref: string): string {
  return ref.split("/").at(-1) ?? ref;
}

function typeOf(schema: Json | undefined): string {
  if (!schema) return "";
  if (typeof schema.$ref === "string") {
    const name = refName(schema.$ref);
    return `<a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a>`;
  }
  const variants = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (variants) return variants.map(typeOf).join(" or ");
  if (Array.isArray(schema.enum)) {
    return `one of ${schema.enum.map((v) => `<code>${escapeHtml(String(v))}</code>`).join(", ")}`;
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  return types
    .filter(Boolean)
    .map((type) => {
      if (type === "array") return `array of ${typeOf(schema.items as Json)}`;
      if (type === "object" && schema.properties && (schema.properties as Json).error)
        return "error envelope";
      return schema.format ? `${type} (${escapeHtml(String(schema.format))})` : type;
    })
    .join(" or ");
}

function table(headers: string[], rows: string[][]): string {
  if (rows.length === 0) return "";
  const head = headers.map((h) => `<th>${h}</th>`).join("");
  const body = rows.map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join("")}</tr>`);
  return `<table><thead><tr>${head}</tr></thead><tbody>${body.join("")}</tbody></table>`;
}

function renderOperation(method: string, path: string, op: Json): string {
  const id = escapeHtml(String(op.operationId ?? `${method}-${path}`));
  const parameters = ((op.parameters as Json[] | undefined) ?? []).map((p) => [
    `<code>${escapeHtml(String(p.name))}</code>`,
    escapeHtml(String(p.in)),
    p.required ? "yes" : "no",
    typeOf(p.schema as Json),
    inlineMarkdown(String(p.description ?? (p.schema as Json | undefined)?.description ?? "")),
  ]);
  const responses = Object.entries((op.responses as Json) ?? {}).map(([status, value]) => {
    const response = value as Json;
    const content = response.content as Json | undefined;
    const schema = (content?.["application/json"] as Json | undefined)?.schema as Json | undefined;
    return [
      `<code>${escapeHtml(status)}</code>`,
      inlineMarkdown(String(response.description ?? "")),
      typeOf(schema),
    ];
  });
  return `<section id="${id}">
<h2><span class="method">${escapeHtml(method.toUpperCase())}</span> <code>${escapeHtml(path)}</code></h2>
<p class="summary">${escapeHtml(String(op.summary ?? ""))}</p>
${paragraphs(op.description as string | undefined)}
${parameters.length ? `<h3>Parameters</h3>${table(["name", "in", "required", "type", "description"], parameters)}` : ""}
<h3>Responses</h3>
${table(["status", "meaning", "body"], responses)}
</section>`;
}

function renderSchema(name: string, schema: Json): string {
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const rows = Object.entries((schema.properties as Json | undefined) ?? {}).map(
    ([field, value]) => {
      const property = value as Json;
      return [
        `<code>${escapeHtml(field)}</code>`,
        typeOf(property),
        required.has(field) ? "always" : "optional",
        inlineMarkdown(String(property.description ?? "")),
      ];
    },
  );
  return `<section id="schema-${escapeHtml(name)}">
<h2>${escapeHtml(name)}</h2>
${table(["field", "type", "present", "description"], rows)}
</section>`;
}

const style = `body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem;color:#1b1f24}
code{font:13px ui-monospace,monospace;background:#f1f3f5;padding:0 .25em;border-radius:3px}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1rem}th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}section{border-top:1px solid #d0d7de;margin-top:1.5rem}.method{color:#0b6b3a}
nav li{margin:.15rem 0}@media (max-width:40rem){table{display:block;overflow-x:auto}}`;

export function renderReferencePage(document: OpenApiDocument): string {
  const doc = document as unknown as Json;
  const info = doc.info as Json;
  const server = ((doc.servers as Json[] | undefined)?.[0]?.url as string | undefined) ?? "/v1";
  const operations: { method: string; path: string; op: Json }[] = [];
  for (const [path, item] of Object.entries((doc.paths as Json) ?? {})) {
    for (const [method, op] of Object.entries(item as Json)) {
      operations.push({ method, path, op: op as Json });
    }
  }
  const schemas = Object.entries(((doc.components as Json)?.schemas as Json | undefined) ?? {});
  const nav = operations
    .map(
      ({ method, path, op }) =>
        `<li><a href="#${escapeHtml(String(op.operationId))}">${escapeHtml(method.toUpperCase())} ${escapeHtml(path)}</a> — ${escapeHtml(String(op.summary ?? ""))}</li>`,
    )
    .join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(String(info.title))} — reference</title><style>${style}</style></head>
<body>
<h1>${escapeHtml(String(info.title))} <small>${escapeHtml(String(info.version))}</small></h1>
<p>Base URL: <code>${escapeHtml(server)}</code> · Machine-readable: <a href="openapi.json">openapi.json</a> (OpenAPI ${escapeHtml(String(doc.openapi))})</p>
${paragraphs(info.description as string | undefined)}
<nav><h2>Endpoints</h2><ul>${nav}</ul></nav>
${operations.map(({ method, path, op }) => renderOperation(method, path, op)).join("\n")}
<h2>Schemas</h2>
${schemas.map(([name, schema]) => renderSchema(name, schema as Json)).join("\n")}
</body></html>`;
}
