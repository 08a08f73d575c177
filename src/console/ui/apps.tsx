import type { GrantRecord } from '../../core/schemas/oauth.js';
import { api } from './api.js';
import { fmtAgo, fmtTime } from './format.js';
import { SCOPE_TEXT } from './scopes.js';
import { type Column, DataTable } from './table.js';
import { useList } from './use-list.js';
import { ActionStatus, LoadedList, useConfirm } from './widgets.js';

const appName = (g: GrantRecord) => g.client_name ?? 'Unnamed app';
const resourceLabel = (g: GrantRecord) => (g.resource.endsWith('/mcp') ? 'MCP' : 'REST API');

/**
 * Connected apps (docs/console.md): the OAuth grants of the account, as GET /v1/oauth/grants
 * lists them, each revocable. Revoking ends the app's access and refresh tokens at once.
 */
export function ConnectedApps() {
  const { items: grants, error, status, act } = useList<GrantRecord>('/v1/oauth/grants?limit=100');
  const { ask, dialog } = useConfirm();
  const revoke = (g: GrantRecord) =>
    ask({
      title: `Revoke “${appName(g)}”?`,
      body: `It stops working at once: its access and refresh tokens are refused from now on. To use it again, connect it again from the app.`,
      confirmLabel: 'Revoke access',
      onConfirm: () => void act(() => api('DELETE', `/v1/oauth/grants/${g.id}`), `“${appName(g)}” can no longer use Aisle.`),
    });
  const columns: Column<GrantRecord>[] = [
    {
      head: 'App',
      cell: (g) => (
        <>
          {appName(g)}
          <div class="muted small">
            <code>{g.client_id}</code>
          </div>
        </>
      ),
    },
    { head: 'Returns to', cell: (g) => g.redirect_host },
    {
      head: 'Scopes',
      class: 'scopes',
      cell: (g) =>
        g.scopes.map((s) => (
          <div key={s} title={SCOPE_TEXT[s]}>
            <code>{s}</code>
          </div>
        )),
    },
    { head: 'For', cell: resourceLabel },
    { head: 'Connected', cell: (g) => fmtTime(g.created_at) },
    { head: 'Last used', cell: (g) => fmtAgo(g.last_used_at) },
    {
      head: <span class="sr-only">Actions</span>,
      class: 'actions',
      cell: (g) => (
        <button type="button" class="danger" aria-label={`Revoke ${appName(g)}`} onClick={() => revoke(g)}>
          Revoke
        </button>
      ),
    },
  ];
  return (
    <div class="apps">
      <ActionStatus error={error} status={status} />
      <p class="muted">
        Apps such as Claude or ChatGPT connect to Aisle by OAuth: the account owner approves them, and each acts as the key that approved it, with the scopes
        granted. A connected app never sees the key.
      </p>
      <LoadedList
        items={grants}
        loading="Loading connected apps…"
        empty={<p class="notice">No app is connected. An app appears here once you allow it on the consent page it sends you to.</p>}
      >
        {(grants) => <DataTable name="apps" columns={columns} rows={grants} rowKey={(g) => g.id} rowData={(g) => ({ 'data-grant-id': g.id })} />}
      </LoadedList>
      {dialog}
    </div>
  );
}
