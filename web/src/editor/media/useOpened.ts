import { useEffect, useRef, useState } from 'react';
import { MediaError } from './fetch-media';

/** A medium's file while it is fetched and opened, once opened, or why it could not be. */
export type Opened<T> = { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready'; value: T };

export interface OpenOptions<T> {
  /** Said when there is nothing to open (`key` undefined or empty). */
  missing: string;
  /** Said when opening fails with anything but a MediaError (whose own words are shown). */
  failed: string;
  /** Releases a value no longer shown: opened after its editor left, or replaced by a new key. */
  close?: (value: T) => void;
}

/**
 * Fetches and opens a medium's file once per `key` (its address, or its addresses joined): the
 * one loading state of the media editors. `open` may change on every render; the key alone
 * decides when the file is opened again.
 */
export function useOpened<T>(
  key: string | undefined,
  open: (key: string) => Promise<T>,
  opts: OpenOptions<T>,
): Opened<T> {
  const [state, setState] = useState<Opened<T>>({ status: 'loading' });
  const latest = useRef({ open, opts });
  latest.current = { open, opts };
  useEffect(() => {
    const { open: openKey, opts: options } = latest.current;
    if (!key) return setState({ status: 'error', message: options.missing });
    let live = true;
    let opened: { value: T } | undefined;
    setState({ status: 'loading' });
    openKey(key)
      .then((value) => {
        opened = { value };
        if (live) setState({ status: 'ready', value });
        else options.close?.(value);
      })
      .catch((e: unknown) => {
        const message = e instanceof MediaError ? e.message : options.failed;
        if (live) setState({ status: 'error', message });
      });
    return () => {
      live = false;
      if (opened) options.close?.(opened.value);
    };
  }, [key]);
  return state;
}
