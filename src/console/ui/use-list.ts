import { useCallback, useEffect, useState } from 'preact/hooks';
import { api } from './api.js';

/**
 * A section's list (keys, webhooks) and the actions on it: `act` runs one change, says `done` in
 * the section's status line and reloads the list, or shows the API's error and keeps the list.
 */
export function useList<T>(path: string) {
  const [items, setItems] = useState<T[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState('');
  const load = useCallback(async () => {
    const page = await api<{ data: T[] }>('GET', path);
    setItems(page.data);
  }, [path]);
  useEffect(() => {
    load().catch(setError);
  }, [load]);
  const act = async (what: () => Promise<void>, done: string | (() => string)) => {
    setError(null);
    try {
      await what();
      setStatus(typeof done === 'string' ? done : done());
      await load();
    } catch (err) {
      setError(err);
    }
  };
  return { items, error, status, act };
}
