#!/usr/bin/env bun
import { processIo } from "./cli/io.ts";
import { runCli } from "./cli/program.ts";

process.exitCode = await runCli(process.argv.slice(2), processIo());
