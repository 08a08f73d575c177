/**
 * What bench:worst runs: a request kind (a route, or an MCP tool on POST /mcp) with its typical
 * request and its worst ones, the accounts and fixtures they act on (Setup), the targets they are
 * judged by, and small helpers the request catalogue (./requests/) shares.
 */
import type { Principal } from '../../../src/core/shared-ports.js';
import { CSRF_HEADER, SESSION_COOKIE } from '../../../src/http/auth.js';
import type { BenchServer } from '../lib.js';
import type { Req } from './client.js';
import type { QueryTexts } from './texts.js';

/** The limits the bench reads from its targets (tools/bench/worst.ts, module comment). */
export const MAX_RATIO = 10;
export const MAX_SEARCH_RATIO = 3;
export const MAX_BLOCK_MS = 50;

export interface Variant {
  label: string;
  /** Builds `n` requests (creating what they act on) outside the measured window. */
  build(n: number): Promise<Req[]>;
  /** Undoes what the batch created (keys, webhooks), outside the measured window. */
  cleanup?(): Promise<void>;
  /** Statuses that count as success; 2xx when absent. */
  ok?: (status: number) => boolean;
  /** A kind reported for what it answers (any status), not judged. */
  report?: boolean;
  /** Fewer requests per batch than the kind's (a batch of ten worst searches takes seconds). */
  reps?: number;
}

export interface Kind {
  /** `METHOD /url` exactly as the route table has it. */
  route: string;
  /** MCP: the tool (or method) one POST /mcp calls. */
  tool?: string;
  reps: number;
  /** The CPU ratio allowed for its worst requests (search: 3, others 10). */
  maxRatio: number;
  typical: Variant;
  worst: Variant[];
  /** Divides the CPU of a row for its per-search cost beside a plain search (batch: 10). */
  perSearch?: number;
}

export const v = (label: string, build: (n: number) => Req[] | Promise<Req[]>, extra: Partial<Variant> = {}): Variant => ({
  label,
  build: async (n) => build(n),
  ...extra,
});
export const times = <T>(n: number, f: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => f(i));

/** A fresh search result: an impression nobody has clicked or displayed yet, with its search. */
export interface Shown {
  requestId: string;
  impressionId: string;
  productId: string;
  clickUrl: string;
}

export interface Setup {
  server: BenchServer;
  queries: QueryTexts;
  /** Account A: searches, events, analytics, console, MCP. */
  keyA: string;
  principalA: Principal;
  /** Account K: key creation, rotation, deletion. */
  principalK: Principal;
  keyK: string;
  /** Account L: 100 keys to list. */
  keyL: string;
  /** Account T: two small webhooks; W: twenty at their largest, the first with 1,000 deliveries; W2: create and delete. */
  keyT: string;
  principalT: Principal;
  keyW: string;
  principalW: Principal;
  keyW2: string;
  principalW2: Principal;
  webhooksT: string[];
  webhooksW: string[];
  consoleCookie(): Promise<{ cookie: string; csrf: string }>;
  shown(n: number): Promise<Shown[]>;
  clicks(n: number): Promise<{ clickId: string; impressionId: string }[]>;
  bodyLimit(route: string): number;
  /** Whether the catalog's products have URLs (GET /r/ redirects to them). */
  productUrls: boolean;
}

export const DAY_MS = 86_400_000;

/** `start_date` and `end_date` of one instant: two Date.now() calls apart could make "31 days" a few ms longer. */
export const lastDays = (days: number) => {
  const now = Date.now();
  return { start_date: new Date(now - days * DAY_MS).toISOString(), end_date: new Date(now).toISOString() };
};

export const rangeQuery = (days: number) => new URLSearchParams(lastDays(days)).toString();

/** The same range as `start_date=…&end_date=…` with the ISO times as they are (not URL-encoded). */
export const rangeParams = (days: number) => {
  const { start_date, end_date } = lastDays(days);
  return `start_date=${start_date}&end_date=${end_date}`;
};

/** The headers of a new console session of account A: its cookie and its CSRF token. */
export async function consoleHeaders(s: Setup): Promise<{ cookie: string; [header: string]: string }> {
  const c = await s.consoleCookie();
  return { cookie: `${SESSION_COOKIE}=${c.cookie}`, [CSRF_HEADER]: c.csrf };
}
