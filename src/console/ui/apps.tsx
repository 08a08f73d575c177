import { useState } from 'preact/hooks';
import type { GrantRecord } from '../../core/schemas/oauth.js';
import { api } from './api.js';
import { fmtAgo, fmtTime } from './format.js';
import { SCOPE_TEXT } from './scopes.js';
import { useList } from './use-list.js';
import { Confirm, ErrorMessage } from './widgets.js';

const appName = (g: GrantRecord) => g.client_name ?? 'Unnamed app';
const resourceLabel = (g: GrantRecord) => (g.resource.endsWith('/mcp') ? 'MCP' : 'REST API');

/**
 * Connected apps (docs/console.md): the OAuth grants of the account, as GET /v1/oauth/grants
 * lists them, each revocable. Revoking ends the app's access and refresh tokens at once.
 */
export function ConnectedApps() {
  const { items: grants, error, status, act } = useList<GrantRecord>('/v1/oauth/grants?limit=100');
  const [confirmRevoke, setConfirmRevoke] = useState<GrantRecord | null>(null);
  return (
    <div class="apps">
      <ErrorMessage error={error} />
      <p class="live" role="status">
        {status}
      </p>
      <p class="muted">
        Apps such as Claude or ChatGPT connect to Aisle by OAuth: the account owner approves them, and each acts as the key that approved it, with the scopes
        granted. A connected app never sees the key.
      </p>
      {grants === null ? (
        <p role="status">Loading connected apps…</p>
      ) : grants.length === 0 ? (
        <p class="notice">No app is connected. An app appears here once you allow it on the consent page it sends you to.</p>
      ) : (
        <div class="table-wrap">
          <table data-table="apps">
            <thead>
              <tr>
                <th scope="col">App</th>
                <th scope="col">Returns to</th>
                <th scope="col">Scopes</th>
                <th scope="col">For</th>
                <th scope="col">Connected</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {grants.map((g) => (
                <tr key={g.id} data-grant-id={g.id}>
                  <td>
                    {appName(g)}
                    <div class="muted small">
                      <code>{g.client_id}</code>
                    </div>
                  </td>
                  <td>{g.redirect_host}</td>
                  <td class="scopes">
                    {g.scopes.map((s) => (
                      <div key={s} title={SCOPE_TEXT[s]}>
                        <code>{s}</code>
                      </div>
                    ))}
                  </td>
                  <td>{resourceLabel(g)}</td>
                  <td>{fmtTime(g.created_at)}</td>
                  <td>{fmtAgo(g.last_used_at)}</td>
                  <td class="actions">
                    <button type="button" class="danger" aria-label={`Revoke ${appName(g)}`} onClick={() => setConfirmRevoke(g)}>
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {confirmRevoke && (
        <Confirm
          title={`Revoke “${appName(confirmRevoke)}”?`}
          body={`It stops working at once: its access and refresh tokens are refused from now on. To use it again, connect it again from the app.`}
          confirmLabel="Revoke access"
          onCancel={() => setConfirmRevoke(null)}
          onConfirm={() => {
            const g = confirmRevoke;
            setConfirmRevoke(null);
            void act(() => api('DELETE', `/v1/oauth/grants/${g.id}`), `“${appName(g)}” can no longer use Aisle.`);
          }}
        />
      )}
    </div>
  );
}
