#!/usr/bin/env node
// `aisle-mcp` (package.json bin): the stdio MCP server, run from a checkout through tsx.
import { register } from 'tsx/esm/api';

register();
await import('./stdio.ts');
