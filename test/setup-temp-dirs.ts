import { afterAll } from 'vitest';
import { removeTempDirs } from './helpers/process.js';

// Registered before any test file's own hooks, so it runs after them (hooks unwind as a stack):
// stores and servers are closed before their directories go.
afterAll(removeTempDirs);
