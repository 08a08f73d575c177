import { type OutboundClient, OutboundError } from './client.js';

export interface FetchBounds {
  /** One request, from the connect to the answer's last byte. */
  timeoutMs: number;
  /** The largest answer body read. */
  maxBytes: number;
}

/** Statuses whose Response carries no body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * A `fetch` for SDKs that take one (the OpenAI SDK), over the outbound client: the same guard,
 * bounds and crash-safety as every other call Aisle makes. String and byte bodies only; the answer
 * is read whole, within `maxBytes`, before its Response is handed over, and an encoding that was
 * not asked for (the client asks for none) fails rather than reach a JSON parser as bytes.
 */
export function outboundFetch(client: OutboundClient, bounds: FetchBounds): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    headers.delete('accept-encoding');
    const body = init?.body ?? undefined;
    if (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) {
      throw new TypeError('outboundFetch sends string and byte bodies only');
    }
    const res = await client.request(url, {
      method,
      headers: Object.fromEntries(headers),
      ...(body === undefined || body === null ? {} : { body }),
      timeoutMs: bounds.timeoutMs,
      maxBytes: bounds.maxBytes,
      ...(init?.signal ? { signal: init.signal } : {}),
    });
    const encoding = res.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
      throw new OutboundError('malformed', `the answer is ${encoding}-encoded, which was not asked for`);
    }
    if (res.status < 200 || res.status > 599) throw new OutboundError('malformed', `the answer's status ${res.status} is not a final HTTP status`);
    const out = new Headers();
    for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
      try {
        out.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
      } catch {
        // A header a fetch Response cannot hold (a value Node's parser let through) is left out.
      }
    }
    return new Response(NULL_BODY.has(res.status) || method === 'HEAD' ? null : res.body, { status: res.status, headers: out });
  };
}
