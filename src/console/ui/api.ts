import type { ConsoleSessionInfo } from '../../core/schemas/console.js';

/** An RFC 9457 problem the server answered, or a network failure shaped like one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly fieldErrors: { path: string; message: string }[] = [],
  ) {
    super(detail);
  }
}

/** What the console sends; all but GET change something, so they carry the CSRF token. */
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

let csrfToken: string | null = null;
let onSignedOut: () => void = () => undefined;

/** The session's CSRF token, echoed on every state change; the session cookie itself is HttpOnly. */
export function setSession(session: ConsoleSessionInfo | null): void {
  csrfToken = session?.csrf_token ?? null;
}

/** Called when the server says the session has ended, so the app can show the sign-in form. */
export function whenSignedOut(fn: () => void): void {
  onSignedOut = fn;
}

/**
 * Same-origin JSON request with the session cookie; throws ApiError for any non-2xx answer. A
 * change refused for its CSRF token (another tab signed in again, so this tab's token is stale)
 * fetches the session's current token and is tried once more.
 */
export async function api<T>(method: Method, path: string, body?: unknown): Promise<T> {
  try {
    return await request<T>(method, path, body);
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== 'csrf_failed') throw err;
    setSession(await request<ConsoleSessionInfo>('GET', '/console/session'));
    return request<T>(method, path, body);
  }
}

async function request<T>(method: Method, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken !== null) headers['x-csrf-token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(path, { method, headers, credentials: 'same-origin', ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  } catch {
    throw new ApiError(0, 'network', 'The server could not be reached. Is Aisle still running?');
  }
  if (res.status === 204) return undefined as T;
  const data: unknown = await res.json().catch(() => null);
  if (res.ok) return data as T;
  const p = (data ?? {}) as { code?: string; detail?: string; title?: string; errors?: { path: string; message: string }[] };
  const error = new ApiError(res.status, p.code ?? 'unknown', p.detail ?? p.title ?? `The server answered ${res.status}.`, p.errors ?? []);
  if (error.code === 'session_expired' && !path.startsWith('/console/session')) onSignedOut();
  throw error;
}

export const query = (params: Record<string, string | number | undefined>): string => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
};
