import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { ConsoleSessionInfo } from '../../core/schemas/console.js';
import { ApiError, api } from './api.js';

/**
 * The sign-in form: the API key goes once to POST /console/session and is forgotten. The console
 * and the OAuth consent view share it; `intro` says why the key is asked for.
 */
export function SignIn({
  onSignedIn,
  notice,
  title = 'Aisle console',
  intro,
  children,
}: {
  onSignedIn: (s: ConsoleSessionInfo) => void;
  notice: string | null;
  title?: string;
  intro?: ComponentChildren;
  children?: ComponentChildren;
}) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const field = form.elements.namedItem('api_key') as HTMLInputElement;
    setBusy(true);
    setError(null);
    try {
      const session = await api<ConsoleSessionInfo>('POST', '/console/session', { api_key: field.value });
      field.value = '';
      onSignedIn(session);
    } catch (err) {
      setError(err instanceof ApiError ? signInMessage(err) : 'Sign-in failed.');
      field.focus();
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <h1>{title}</h1>
      {intro ?? (
        <p>
          Sign in with an API key. The first one is printed by <code>npm start</code> when the server starts on an empty database.
        </p>
      )}
      {children}
      <p class="notice" role="status" hidden={!notice}>
        {notice}
      </p>
      <form onSubmit={submit} autocomplete="off">
        <label for="api-key">API key</label>
        {/* one-time-code: browsers honour it where they ignore autocomplete=off, so no password manager offers to keep the key. */}
        <input
          id="api-key"
          name="api_key"
          type="password"
          required
          spellcheck={false}
          autocomplete="one-time-code"
          placeholder="aisle_sk_…"
          aria-describedby={error ? 'signin-error' : undefined}
        />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {error && (
          <p id="signin-error" class="error" role="alert">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}

function signInMessage(err: ApiError): string {
  switch (err.code) {
    case 'invalid_api_key':
      return 'That API key was not accepted: it is not a valid Aisle key, or it has been deleted. Check it and try again.';
    case 'validation_failed':
      return 'Enter an API key.';
    default:
      return `That API key was not accepted: ${err.detail}`;
  }
}
