// Reads the Prometheus text exposition format strictly enough for tests: every sample line
// must parse, and every sample's metric must have been announced by # HELP and # TYPE.
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const labelPair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePrometheus(text: string): Sample[] {
  const typed = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      typed.set(type[1] as string, type[2] as string);
      continue;
    }
    if (line.startsWith("# HELP ")) continue;
    const match = sampleLine.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const name = match[1] as string;
    const family = name.replace(/_(bucket|sum|count)$/, "");
    if (!typed.has(name) && !typed.has(family)) throw new Error(`sample without # TYPE: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? "").matchAll(labelPair)) {
      labels[pair[1] as string] = pair[2] as string;
    }
    const raw = match[3] as string;
    const value = raw === "+Inf" ? Number.POSITIVE_INFINITY : Number(raw);
    if (Number.isNaN(value)) throw new Error(`sample value is not a number: ${line}`);
    samples.push({ name, labels, value });
  }
  return samples;
}

/** The value of the one sample with this name whose labels include `labels` (it must exist). */
export function sampleValue(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number {
  const found = samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length !== 1) {
    throw new Error(`${name} ${JSON.stringify(labels)} matches ${found.length} samples, not 1`);
  }
  return (found[0] as Sample).value;
}
