import { useEffect, useState } from 'preact/hooks';
import type { ConsoleSessionInfo } from '../../core/schemas/console.js';
import { ApiError, api, setSession, whenSignedOut } from './api.js';

/**
 * The page's console session (the console and the consent view): asked of GET /console/session
 * on mount. Only a 401 means "not signed in" (`session` null); anything else (429, 5xx, no
 * network) is kept as `loadError`, with `session` still 'loading', for the page to say as it is
 * and `check` again. `signedIn` takes the session SignIn returns; `signedOut` shows the sign-in
 * form with a notice, as does a session the server ends later (api.ts's whenSignedOut).
 */
export function useSession() {
  const [session, setSessionState] = useState<ConsoleSessionInfo | null | 'loading'>('loading');
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const adopt = (s: ConsoleSessionInfo | null) => {
    setSession(s);
    setSessionState(s);
  };
  const check = () => {
    setLoadError(null);
    api<ConsoleSessionInfo>('GET', '/console/session').then(adopt, (err: unknown) => {
      if (err instanceof ApiError && err.status !== 401) {
        setLoadError(err);
        return;
      }
      adopt(null);
    });
  };
  const signedIn = (s: ConsoleSessionInfo) => {
    setNotice(null);
    adopt(s);
  };
  const signedOut = (why: string) => {
    setNotice(why);
    adopt(null);
  };

  useEffect(() => {
    whenSignedOut(() => signedOut('Your session has ended. Sign in again.'));
    check();
  }, []);

  return { session, loadError, notice, check, signedIn, signedOut };
}
