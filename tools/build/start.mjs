// `npm start`: the server (src/main.ts) from its compiled JavaScript (compile.mjs). API processes
// that node:cluster starts run this file again and get the same build.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compile } from './compile.mjs';

await import(pathToFileURL(join(await compile(), 'src', 'main.js')).href);
