import { useEffect, useRef, useState } from 'preact/hooks';
import { SCOPES, type Scope } from '../../core/keys/scopes.js';
import type { ConsoleSessionInfo } from '../../core/schemas/console.js';
import type { CreatedKey, KeyRecord, RotatedKey } from '../../core/schemas/keys.js';
import { api } from './api.js';
import { fmtAgo, fmtTime } from './format.js';
import { type Column, DataTable } from './table.js';
import { useList } from './use-list.js';
import { ActionStatus, FormSection, LoadedList, type Secret, useConfirm } from './widgets.js';

const GRACE = [
  { seconds: 0, label: 'Immediately' },
  { seconds: 3600, label: 'After 1 hour' },
  { seconds: 86_400, label: 'After 24 hours' },
  { seconds: 604_800, label: 'After 7 days' },
];

const OWN_KEY = 'This is the key you are signed in with: when it stops working, the console signs you out.';

export function Keys({ session, showSecret }: { session: ConsoleSessionInfo; showSecret: (s: Secret) => void }) {
  const { items: keys, error, status, act } = useList<KeyRecord>('/v1/keys?limit=100');
  const { ask, dialog } = useConfirm();
  const graceField = useRef<HTMLSelectElement>(null);
  const [rotating, setRotating] = useState<KeyRecord | null>(null);

  // The rotate form opens below the table: focus its first field so keyboard users land in it.
  useEffect(() => {
    if (rotating) graceField.current?.focus();
  }, [rotating]);

  const create = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const scopes = data.getAll('scopes') as Scope[];
    await act(async () => {
      const created = await api<CreatedKey>('POST', '/v1/keys', { name: String(data.get('name') ?? ''), scopes });
      showSecret({ label: `New API key “${created.metadata.name}”`, value: created.key });
      form.reset();
    }, 'Key created.');
  };
  const own = (k: KeyRecord) => k.id === session.key.id;
  const disable = (k: KeyRecord) => act(() => api('POST', `/v1/keys/${k.id}`), `Key “${k.name}” disabled.`);
  // Disabling the key of this session signs the console out, so that one asks first.
  const askDisable = (k: KeyRecord) =>
    own(k)
      ? ask({
          title: `Disable “${k.name}”?`,
          body: `Agents using this key are refused until it is enabled again. ${OWN_KEY}`,
          confirmLabel: 'Disable key',
          onConfirm: () => void disable(k),
        })
      : void disable(k);
  const askDelete = (k: KeyRecord) =>
    ask({
      title: `Delete “${k.name}”?`,
      body: `Agents using this key stop working at once. Its history stays in analytics. This cannot be undone.${own(k) ? ` ${OWN_KEY}` : ''}`,
      confirmLabel: 'Delete key',
      onConfirm: () => void act(() => api('DELETE', `/v1/keys/${k.id}`), `Key “${k.name}” deleted.`),
    });
  const columns: Column<KeyRecord>[] = [
    {
      head: 'Name',
      cell: (k) => (
        <>
          {k.name}
          {own(k) && <span class="badge">this session</span>}
        </>
      ),
    },
    { head: 'Key', cell: (k) => <code>aisle_sk_…{k.hint}</code> },
    { head: 'Scopes', class: 'scopes', cell: (k) => k.scopes.join(', ') },
    {
      head: 'Status',
      cell: (k) => (
        <>
          <span class={`status status-${k.status}`}>{k.status}</span>
          {k.expires_at && k.status === 'active' && <div class="muted small">until {fmtTime(k.expires_at)}</div>}
        </>
      ),
    },
    { head: 'Last used', cell: (k) => fmtAgo(k.last_used_at) },
    {
      head: <span class="sr-only">Actions</span>,
      class: 'actions',
      cell: (k) => (
        <>
          {(k.status === 'active' || k.status === 'disabled') && (
            <>
              <button type="button" class="secondary" aria-label={`Rotate ${k.name}`} onClick={() => setRotating(k)}>
                Rotate
              </button>
              {k.status === 'active' ? (
                <button type="button" class="secondary" aria-label={`Disable ${k.name}`} onClick={() => askDisable(k)}>
                  Disable
                </button>
              ) : (
                <button
                  type="button"
                  class="secondary"
                  aria-label={`Enable ${k.name}`}
                  onClick={() => act(() => api('POST', `/v1/keys/${k.id}`, { status: 'active' }), `Key “${k.name}” enabled.`)}
                >
                  Enable
                </button>
              )}
            </>
          )}
          <button type="button" class="danger" aria-label={`Delete ${k.name}`} onClick={() => askDelete(k)}>
            Delete
          </button>
        </>
      ),
    },
  ];

  return (
    <div class="keys">
      <ActionStatus error={error} status={status} />

      <section aria-labelledby="keys-list-h">
        <h2 id="keys-list-h">API keys</h2>
        <LoadedList items={keys} loading="Loading keys…">
          {(keys) => (
            <DataTable name="keys" columns={columns} rows={keys} rowKey={(k) => k.id} rowData={(k) => ({ 'data-key-id': k.id, 'data-key-name': k.name })} />
          )}
        </LoadedList>
      </section>

      {rotating && (
        <form
          class="panel"
          aria-label={`Rotate ${rotating.name}`}
          onKeyDown={(e) => e.key === 'Escape' && setRotating(null)}
          onSubmit={async (e) => {
            e.preventDefault();
            const grace = Number(new FormData(e.currentTarget as HTMLFormElement).get('grace'));
            const k = rotating;
            setRotating(null);
            await act(async () => {
              const r = await api<RotatedKey>('POST', `/v1/keys/${k.id}/rotate`, { grace_period_seconds: grace });
              showSecret({
                label: `New API key “${r.metadata.name}”`,
                value: r.key,
                note: `The key it replaces works until ${fmtTime(r.old_key_expires_at)}.${own(k) ? ' Sign in with the new key when the console asks.' : ''}`,
              });
            }, `Key “${k.name}” rotated.`);
          }}
        >
          <h2>Rotate “{rotating.name}”</h2>
          <p>A new secret replaces this key. Agents using the old one must switch before it stops working.</p>
          {own(rotating) && <p class="notice">{OWN_KEY}</p>}
          <label for="grace">The old key stops working</label>
          <select id="grace" name="grace" ref={graceField}>
            {GRACE.map((g) => (
              <option key={g.seconds} value={g.seconds} selected={g.seconds === 86_400}>
                {g.label}
              </option>
            ))}
          </select>
          <div class="actions">
            <button type="button" class="secondary" onClick={() => setRotating(null)}>
              Cancel
            </button>
            <button type="submit">Rotate key</button>
          </div>
        </form>
      )}

      <FormSection id="keys-create-h" title="Create a key" onSubmit={create}>
        <label for="key-name">Key name</label>
        <input id="key-name" name="name" required maxLength={100} placeholder="e.g. support-agent-prod" />
        <fieldset>
          <legend>Scopes</legend>
          <p class="muted small">A key can only grant scopes the key you signed in with has.</p>
          {SCOPES.map((s) => (
            <label key={s} class="check">
              <input type="checkbox" name="scopes" value={s} defaultChecked={s === 'search' || s === 'events:write'} disabled={!session.scopes.includes(s)} />{' '}
              <code>{s}</code>
            </label>
          ))}
        </fieldset>
        <button type="submit">Create key</button>
      </FormSection>

      {dialog}
    </div>
  );
}
