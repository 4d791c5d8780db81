// prom-client types only its index; src/metrics/prom.ts gives these files their index's types.
declare module "prom-client/lib/*" {
  const value: unknown;
  // biome-ignore lint/style/noDefaultExport: a CommonJS file's module.exports, as imported
  export default value;
}
