// A TypeScript sample per /v1 operation (`x-codeSamples`, shown by the reference beside the curl
// and Python samples Scalar generates): plain fetch, so it needs no package, with the same
// variables as docs/api-guide.md (SVC_BASE_URL without /v1, SVC_API_KEY) and the parameters'
// documented examples.
type Json = Record<string, unknown>;

function typescriptSample(path: string, operation: Json): string {
  const parameters = (operation.parameters ?? []) as Json[];
  let url = `/v1${path}`;
  const query: string[] = [];
  for (const parameter of parameters) {
    if (!("example" in parameter)) continue;
    const value = encodeURIComponent(String(parameter.example));
    if (parameter.in === "path") url = url.replace(`{${String(parameter.name)}}`, value);
    else if (parameter.in === "query" && parameter.required)
      query.push(`${parameter.name}=${value}`);
  }
  const ok = (operation.responses as Json | undefined)?.["200"] as Json | undefined;
  const schemaRef = ((ok?.content as Json | undefined)?.["application/json"] as Json | undefined)
    ?.schema as Json | undefined;
  const shape = typeof schemaRef?.$ref === "string" ? schemaRef.$ref.split("/").at(-1) : undefined;
  const target = `\`\${process.env.SVC_BASE_URL}${url}${query.length ? `?${query.join("&")}` : ""}\``;
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample's own template literal.
  const bearer = "`Bearer ${process.env.SVC_API_KEY}`";
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample's own template literal.
  const failure = "`${response.status} ${error.code}: ${error.message}`";
  return [
    `const response = await fetch(${target}, {`,
    `  headers: { Authorization: ${bearer} },`,
    "});",
    "if (!response.ok) {",
    "  const { error } = (await response.json()) as { error: { code: string; message: string } };",
    `  throw new Error(${failure});`,
    "}",
    `const body = await response.json();${shape ? ` // ${shape}` : ""}`,
  ].join("\n");
}

/** The event stream's sample: reads Server-Sent Events as they come (plain fetch, no package). */
function streamSample(path: string): string {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample's own template literal.
  const bearer = "`Bearer ${process.env.SVC_API_KEY}`";
  return [
    `const response = await fetch(\`\${process.env.SVC_BASE_URL}/v1${path}\`, {`,
    `  headers: { Authorization: ${bearer}, Accept: "text/event-stream" },`,
    "});",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample's own template literal.
    "if (!response.ok || !response.body) throw new Error(`${response.status}: ${await response.text()}`);",
    'let buffer = "";',
    "for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) {",
    "  buffer += chunk;",
    '  let end = buffer.indexOf("\\n\\n");',
    "  while (end >= 0) {",
    '    const data = buffer.slice(0, end).split("\\n").find((line) => line.startsWith("data: "));',
    "    if (data) console.log(JSON.parse(data.slice(6))); // an Event envelope",
    "    buffer = buffer.slice(end + 2);",
    '    end = buffer.indexOf("\\n\\n");',
    "  }",
    "}",
    "// The stream ended (the server stopped): reconnect with the Last-Event-ID header.",
  ].join("\n");
}

/** Whether the operation's 200 is a Server-Sent Events stream (its sample reads one). */
function answersEventStream(operation: Json): boolean {
  const ok = (operation.responses as Json | undefined)?.["200"] as Json | undefined;
  return "text/event-stream" in ((ok?.content as Json | undefined) ?? {});
}

/** Adds `x-codeSamples` with a TypeScript sample to every operation of `document` (in place). */
export function addCodeSamples(document: Json): void {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Json>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const operation of Object.values(item)) {
      operation["x-codeSamples"] = [
        {
          lang: "typescript",
          label: "TypeScript",
          source: answersEventStream(operation)
            ? streamSample(path)
            : typescriptSample(path, operation),
        },
      ];
    }
  }
}
