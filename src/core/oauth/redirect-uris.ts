/**
 * Redirect URIs a client may register (docs/oauth.md): https anywhere, plain http only to this
 * machine's loopback (native and command-line clients listen there), never with a fragment or
 * user info. Matching at /oauth/authorize is exact, character for character.
 */
const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** Null when the URI is acceptable, else why not. */
export function checkRedirectUri(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${raw.slice(0, 100)} is not an absolute URL`;
  }
  if (url.hash !== '' || raw.includes('#')) return `${url.origin}: a redirect URI must not have a #fragment`;
  if (url.username !== '' || url.password !== '') return `${url.protocol}//…: a redirect URI must not carry a user name or password`;
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.test(url.hostname)) return null;
  if (url.protocol === 'http:') return `${url.origin}: plain http is allowed only for loopback addresses (127.0.0.1, [::1], localhost)`;
  return `${url.protocol} redirect URIs are not supported: use https, or http on a loopback address`;
}

/** The host a person can check on the consent page and in the grant list. */
export const redirectHost = (uri: string): string => new URL(uri).host;
