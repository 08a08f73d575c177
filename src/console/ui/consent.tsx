/**
 * The OAuth consent view (docs/oauth.md), shown when the authorization endpoint serves the
 * console's page: the person signs in with an API key as in the console, sees which app asks,
 * where the browser returns to and what it may do, and allows or denies. The pending request is
 * the page's own query string; the server checks it again on every step.
 */
import { useEffect, useState } from 'preact/hooks';
import type { ConsoleSessionInfo } from '../../core/schemas/console.js';
import type { ConsentDescription } from '../../core/schemas/oauth.js';
import { api } from './api.js';
import { SCOPE_TEXT } from './scopes.js';
import { SignIn } from './signin.js';
import { useSession } from './use-session.js';
import { ActionStatus, ErrorMessage, PageLoading } from './widgets.js';

const NOT_GRANTABLE_WHY = 'the key you signed in with does not hold it, or no connected app may hold it (managing API keys)';

function Request({ session, request, onSignOut }: { session: ConsoleSessionInfo; request: ConsentDescription; onSignOut: () => void }) {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const { client } = request;
  const name = client.name ?? 'An app without a name';
  const refused = request.scopes.filter((s) => !s.grantable).map((s) => s.scope);
  const what = request.resource.endsWith('/mcp') ? 'Aisle’s MCP server' : 'Aisle’s REST API';

  const decide = async (decision: 'approve' | 'deny') => {
    setError(null);
    setBusy(decision === 'approve' ? `Allowed. Returning you to ${client.redirect_host}…` : `Denied. Returning you to ${client.redirect_host}…`);
    try {
      const { redirect_to } = await api<{ redirect_to: string }>('POST', `/console/oauth/authorize${location.search}`, { decision });
      location.assign(redirect_to);
    } catch (err) {
      setBusy(null);
      setError(err);
    }
  };

  return (
    <main class="signin consent">
      <h1 tabIndex={-1}>Connect {name} to Aisle?</h1>
      <p>
        <strong>{name}</strong> asks to use {what} as the key <strong>{session.key.name}</strong> <span class="muted">(…{session.key.hint})</span>.
      </p>
      <dl class="facts">
        <dt>Returns you to</dt>
        <dd>
          <strong data-redirect-host>{client.redirect_host}</strong>
        </dd>
        <dt>Client</dt>
        <dd>
          {client.kind === 'metadata_document' ? (
            <>
              described by its own metadata at <code>{client.client_id}</code>
            </>
          ) : (
            <>
              registered itself as <code>{client.client_id}</code>; its name is not verified
            </>
          )}
        </dd>
      </dl>
      <h2>It will be able to</h2>
      {request.granted.length > 0 ? (
        <ul class="scope-list" data-granted>
          {request.granted.map((s) => (
            <li key={s}>
              {SCOPE_TEXT[s]} <code>{s}</code>
            </li>
          ))}
        </ul>
      ) : (
        <p class="notice" role="status">
          Nothing: the key you signed in with holds none of the scopes this app asks for. Sign in with another key, or deny.
        </p>
      )}
      {refused.length > 0 && (
        <p class="notice" data-refused>
          It also asked for{' '}
          {refused.map((s, i) => (
            <span key={s}>
              {i > 0 && ', '}
              <code>{s}</code>
            </span>
          ))}
          , which will not be granted: {NOT_GRANTABLE_WHY}.
        </p>
      )}
      <p class="muted small">Revoke it any time under Connected apps. Its access also ends when this key is disabled, rotated or deleted.</p>
      <ActionStatus error={error} status={busy} />
      <div class="actions">
        <button type="button" class="secondary" disabled={busy !== null} onClick={() => void decide('deny')}>
          Deny
        </button>
        <button type="button" disabled={busy !== null || request.granted.length === 0} onClick={() => void decide('approve')}>
          Allow
        </button>
      </div>
      <p class="small">
        Not the right key?{' '}
        <button type="button" class="link" onClick={onSignOut}>
          Sign in with another key
        </button>
      </p>
    </main>
  );
}

/** The page at /oauth/authorize: sign-in when needed, then the request. */
export function ConsentPage() {
  const { session, loadError, notice, signedIn, signedOut } = useSession();
  const [request, setRequest] = useState<ConsentDescription | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    document.title = 'Connect an app · Aisle';
  }, []);
  useEffect(() => {
    if (session === null || session === 'loading') return;
    setRequest(null);
    api<ConsentDescription>('GET', `/console/oauth/authorize${location.search}`).then(setRequest, setError);
  }, [session]);
  useEffect(() => {
    if (request !== null) document.querySelector<HTMLElement>('main h1')?.focus();
  }, [request]);

  const signOut = async () => {
    await api('DELETE', '/console/session').catch(() => undefined);
    signedOut('Signed out. Sign in with the key the app should act as.');
  };

  if (loadError !== null || error !== null) {
    return (
      <main class="signin consent">
        <h1>This app cannot be authorized</h1>
        <ErrorMessage error={loadError ?? error} />
        <p>Nothing was shared with the app. Go back to it and connect again.</p>
      </main>
    );
  }
  if (session === 'loading') return <PageLoading>Loading…</PageLoading>;
  if (session === null) {
    const intro = <p>An app asks to connect to Aisle. Sign in with the API key it should act as; the key itself is never shared with the app.</p>;
    return <SignIn title="Connect an app to Aisle" intro={intro} notice={notice} onSignedIn={signedIn} />;
  }
  if (request === null) return <PageLoading>Loading the request…</PageLoading>;
  return <Request session={session} request={request} onSignOut={() => void signOut()} />;
}
