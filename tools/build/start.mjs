// `npm start` and `npm run worker`: a server entry point under src/ (src/main.ts unless another is
// named, as in `node tools/build/start.mjs src/worker/main.ts`) from its compiled JavaScript
// (compile.mjs). API processes that node:cluster starts run this file again, with the same
// arguments, and get the same build.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compile } from './compile.mjs';

const entry = process.argv[2] ?? 'src/main.ts';
if (!/^src\/[\w/-]+\.ts$/.test(entry)) {
  process.stderr.write(`start: ${entry} is not a TypeScript entry point under src/ (for example src/worker/main.ts)\n`);
  process.exit(64);
}
await import(pathToFileURL(join(await compile(), entry.replace(/\.ts$/, '.js'))).href);
