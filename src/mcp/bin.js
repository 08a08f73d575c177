#!/usr/bin/env node
// `aisle-mcp` (package.json bin) and `npm run mcp`: the stdio MCP server from a checkout, run from
// its compiled JavaScript as `npm start` runs the HTTP server (src/launcher/compile.mjs; the
// first start after a change builds it, about a second).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compile } from '../launcher/compile.mjs';

await import(pathToFileURL(join(await compile(), 'src', 'mcp', 'stdio.js')).href);
