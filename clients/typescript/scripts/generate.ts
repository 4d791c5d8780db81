// `bun run client:generate`: writes clients/typescript/src/schema.ts from the current routes.
import { generateSchema, schemaPath, serviceDocument } from "./schema.ts";

await Bun.write(schemaPath, await generateSchema(await serviceDocument()));
console.log(`wrote ${schemaPath}`);
