/**
 * The Aisle console: sign in with an API key (exchanged once for an HttpOnly session cookie; the
 * key is never stored in the browser), then Overview, Keys, Webhooks, Catalog (feeds pulled on a
 * schedule), Connected apps, Policy (the publisher policy, the account's and each key's) and
 * Playground; at /oauth/authorize, the consent view of an OAuth client instead. Each section
 * follows the key's scopes: one the key cannot use says so instead of failing. Bundled by esbuild
 * at the server's first request for it (src/console/assets.ts).
 */
import 'uplot/dist/uPlot.min.css';
import '../../mcp/view/cards.css';
import './styles.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Scope } from '../../core/keys/scopes.js';
import { ApiError, api } from './api.js';
import { ConnectedApps } from './apps.js';
import { Catalog } from './catalog.js';
import { ConsentPage } from './consent.js';
import { Keys } from './keys.js';
import { Overview } from './overview.js';
import { Playground } from './playground.js';
import { Policy } from './policy.js';
import { SignIn } from './signin.js';
import { useSession } from './use-session.js';
import { Webhooks } from './webhooks.js';
import { ErrorMessage, PageLoading, type Secret, SecretPanel } from './widgets.js';

const SECTIONS = [
  { id: 'overview', label: 'Overview', scope: 'analytics:read', what: 'see analytics' },
  { id: 'keys', label: 'Keys', scope: 'keys:manage', what: 'manage API keys' },
  { id: 'webhooks', label: 'Webhooks', scope: 'webhooks:manage', what: 'manage webhooks' },
  { id: 'catalog', label: 'Catalog', scope: 'catalog:write', what: 'manage the feeds pulled into the catalog' },
  { id: 'apps', label: 'Connected apps', scope: 'keys:manage', what: 'see and revoke the apps connected by OAuth' },
  { id: 'policy', label: 'Policy', scope: 'keys:manage', what: 'manage the publisher policy' },
  { id: 'playground', label: 'Playground', scope: 'search', what: 'run searches' },
] as const satisfies readonly { id: string; label: string; scope: Scope; what: string }[];
type SectionId = (typeof SECTIONS)[number]['id'];

const sectionFromHash = (): SectionId => {
  const id = location.hash.replace(/^#\/?/, '');
  return SECTIONS.find((s) => s.id === id)?.id ?? 'overview';
};

function App() {
  const { session, loadError, notice, check, signedIn, signedOut } = useSession();
  const [section, setSection] = useState<SectionId>(sectionFromHash());
  const [secret, setSecret] = useState<Secret | null>(null);
  const [signOutError, setSignOutError] = useState<unknown>(null);

  useEffect(() => {
    const onHash = () => setSection(sectionFromHash());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  useEffect(() => {
    const label = SECTIONS.find((s) => s.id === section)?.label ?? '';
    document.title = session && session !== 'loading' ? `${label} · Aisle console` : 'Aisle console';
  }, [section, session]);

  // After signing in, and on every section change, focus moves to the section's heading.
  useEffect(() => {
    if (session !== null && session !== 'loading') document.querySelector<HTMLElement>('main h1')?.focus();
  }, [session === null || session === 'loading', section]);

  const secretPanel = secret && (
    <SecretPanel label={secret.label} secret={secret.value} onDone={() => setSecret(null)}>
      {secret.note && <p>{secret.note}</p>}
    </SecretPanel>
  );

  if (loadError) {
    return (
      <main class="signin">
        <h1>Aisle console</h1>
        <p class="error" role="alert">
          The console could not reach the server's session check: {loadError.detail}
        </p>
        <button type="button" onClick={check}>
          Try again
        </button>
      </main>
    );
  }
  if (session === 'loading') return <PageLoading>Loading…</PageLoading>;
  if (session === null)
    return (
      <SignIn notice={notice} onSignedIn={signedIn}>
        {secretPanel}
      </SignIn>
    );

  // Signed out only once the server says so (204, or 401: the session had already ended).
  const signOut = async () => {
    setSignOutError(null);
    try {
      await api('DELETE', '/console/session');
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) {
        setSignOutError(err);
        return;
      }
    }
    signedOut('You are signed out.');
  };
  const current = SECTIONS.find((s) => s.id === section)!;
  const allowed = session.scopes.includes(current.scope);
  return (
    <>
      <header class="top">
        <a class="brand" href="#/overview">
          Aisle
        </a>
        <nav aria-label="Sections">
          <ul>
            {SECTIONS.map((s) => (
              <li key={s.id}>
                <a href={`#/${s.id}`} aria-current={s.id === section ? 'page' : undefined}>
                  {s.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span class="key-name" title={`Signed in with key “${session.key.name}” (…${session.key.hint})`}>
            {session.key.name} <span class="hint">…{session.key.hint}</span>
          </span>
          <button type="button" class="secondary" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="content" class="content">
        <h1 tabIndex={-1}>{current.label}</h1>
        {signOutError !== null && <ErrorMessage error={signOutError} />}
        {secretPanel}
        {!allowed ? (
          <p class="notice" role="status" data-missing-scope={current.scope}>
            The key you signed in with does not have the <code>{current.scope}</code> scope, so it cannot {current.what} here. Sign in with a key that has it.
          </p>
        ) : section === 'overview' ? (
          <Overview />
        ) : section === 'keys' ? (
          <Keys session={session} showSecret={setSecret} />
        ) : section === 'webhooks' ? (
          <Webhooks showSecret={setSecret} />
        ) : section === 'catalog' ? (
          <Catalog />
        ) : section === 'apps' ? (
          <ConnectedApps />
        ) : section === 'policy' ? (
          <Policy />
        ) : (
          <Playground />
        )}
      </main>
    </>
  );
}

// The OAuth authorization endpoint serves this same page: there it is the consent view (docs/oauth.md).
render(location.pathname === '/oauth/authorize' ? <ConsentPage /> : <App />, document.getElementById('app')!);
