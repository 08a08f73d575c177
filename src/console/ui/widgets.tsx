import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.js';

/** A secret to show once, held by the app (not the section), so it outlives the session that made it. */
export interface Secret {
  label: string;
  value: string;
  note?: string;
}

/** A secret shown once (a new key or signing secret), with a copy button. */
export function SecretPanel({ label, secret, onDone, children }: { label: string; secret: string; onDone: () => void; children?: ComponentChildren }) {
  const [copied, setCopied] = useState<string | null>(null);
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      field.current?.select();
      setCopied('Selected: press Ctrl+C (⌘C) to copy.');
    }
  };
  return (
    <section class="secret-panel" aria-label={label}>
      <label for="secret-value">{label}</label>
      <div class="secret-row">
        <input
          id="secret-value"
          ref={field}
          type="text"
          readOnly
          value={secret}
          spellcheck={false}
          onFocus={(e) => (e.currentTarget as HTMLInputElement).select()}
        />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <p class="warning">
        <strong>Copy it now: you will not see this again.</strong> Aisle stores only a hash of it.
      </p>
      {children}
      <p class="live" role="status">
        {copied}
      </p>
      <button type="button" class="secondary" onClick={onDone}>
        Done, I have stored it
      </button>
    </section>
  );
}

/** A modal confirmation (the native dialog element: focus is trapped and Escape cancels). */
function Confirm({
  title,
  body,
  confirmLabel,
  onConfirm,
  onCancel,
}: {
  title: string;
  body: string;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    // The dialog is removed rather than closed, so focus goes back to its opener by hand.
    const opener = document.activeElement as HTMLElement | null;
    dialog.current?.showModal();
    return () => {
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={dialog}
      aria-labelledby="confirm-title"
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id="confirm-title">{title}</h2>
      <p>{body}</p>
      <div class="actions">
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** What a Confirm asks, and what runs once the person confirms. */
export interface ConfirmRequest {
  title: string;
  body: string;
  confirmLabel: string;
  onConfirm: () => void;
}

/**
 * A section's confirmations, one at a time: `ask` opens the dialog, which Cancel or Escape closes;
 * the confirm button closes it, then runs the request's `onConfirm`. The section renders `dialog`.
 */
export function useConfirm() {
  const [request, setRequest] = useState<ConfirmRequest | null>(null);
  const dialog = request && (
    <Confirm
      title={request.title}
      body={request.body}
      confirmLabel={request.confirmLabel}
      onCancel={() => setRequest(null)}
      onConfirm={() => {
        setRequest(null);
        request.onConfirm();
      }}
    />
  );
  return { ask: setRequest, dialog };
}

/** A section's answer to its last action: the API's error, and a live line saying what was done. */
export function ActionStatus({ error, status }: { error: unknown; status: string | null }) {
  return (
    <>
      <ErrorMessage error={error} />
      <p class="live" role="status">
        {status}
      </p>
    </>
  );
}

/**
 * A list a section fetches (keys, feeds, deliveries…): a status line saying `loading` while
 * `items` is null, `empty` when there are none (if given), else what `children` makes of them.
 */
export function LoadedList<T>({
  items,
  loading,
  empty,
  children,
}: {
  items: T[] | null;
  loading: string;
  empty?: ComponentChildren;
  children: (items: T[]) => ComponentChildren;
}) {
  if (items === null) return <p role="status">{loading}</p>;
  return <>{items.length === 0 && empty !== undefined ? empty : children(items)}</>;
}

/** A section made of its heading and one form (create a key, add a feed). */
export function FormSection({ id, title, onSubmit, children }: { id: string; title: string; onSubmit: (e: Event) => void; children: ComponentChildren }) {
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <form class="panel" onSubmit={onSubmit}>
        {children}
      </form>
    </section>
  );
}

/** A whole page still loading (the session, an OAuth request), announced to screen readers. */
export function PageLoading({ children }: { children: ComponentChildren }) {
  return (
    <p class="loading" role="status">
      {children}
    </p>
  );
}

/** An error answered by the API, in words, announced to screen readers. */
export function ErrorMessage({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  const e = error instanceof ApiError ? error : null;
  return (
    <div class="error" role="alert">
      <p>{e ? e.detail : 'Something went wrong.'}</p>
      {e && e.fieldErrors.length > 0 && (
        <ul>
          {e.fieldErrors.map((f) => (
            <li key={f.path}>
              <code>{f.path}</code>: {f.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
