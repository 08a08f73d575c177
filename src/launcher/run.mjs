// How npm scripts run our TypeScript: `node src/launcher/run.mjs <entry> [arguments…]` runs the
// entry (src/main.ts when none is named, as `npm start` does) from its compiled JavaScript
// (compile.mjs) rather than through a TypeScript loader, which costs each process about a
// CPU-second to start and 80 MB to hold (docs/development.md, "How npm scripts run our code").
// The entry sees the command line node would have given it: its own file, then its arguments;
// API processes that node:cluster starts run that compiled file directly.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compile } from './compile.mjs';

const named = process.argv[2];
const entry = named ?? 'src/main.ts';
if (!/^(?:src|tools)\/[\w/-]+\.ts$/.test(entry)) {
  process.stderr.write(`run: ${entry} is not a TypeScript entry point under src/ or tools/ (for example src/worker/main.ts)\n`);
  process.exit(64);
}
const compiled = join(await compile(), entry.replace(/\.ts$/, '.js'));
process.argv.splice(1, named === undefined ? 1 : 2, compiled);
// A tool's command line (<tool>.command.ts) is evaluated on its own first: a usage mistake or
// --help is answered before the tool's other modules are even read (about 0.4 CPU-seconds).
// The tool's own import of it then finds the same, already evaluated module.
const commandLine = compiled.replace(/\.js$/, '.command.js');
if (existsSync(commandLine)) await import(pathToFileURL(commandLine).href);
await import(pathToFileURL(compiled).href);
