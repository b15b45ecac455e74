import { useEffect, useState } from 'react';

/** The text of a text asset, fetched from its URL (the server or the storage must allow it). */
export function useAssetText(url: string | null | undefined): { text: string | undefined; error?: string } {
  const [state, setState] = useState<{ text: string | undefined; error?: string }>({ text: undefined });
  useEffect(() => {
    if (!url) return;
    const abort = new AbortController();
    setState({ text: undefined });
    fetch(url, { signal: abort.signal })
      .then(async (r) => {
        if (!r.ok) throw new Error(`the text answered ${r.status}`);
        setState({ text: await r.text() });
      })
      .catch((err: unknown) => {
        if (!abort.signal.aborted) setState({ text: undefined, error: err instanceof Error ? err.message : 'failed' });
      });
    return () => abort.abort();
  }, [url]);
  return state;
}
