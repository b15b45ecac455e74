import type { Readable } from 'node:stream';

/*
 * The server's own file store: uploads through signed URLs, instructions files, chat
 * conversations. One small interface so a bucket-backed store can replace the local folder
 * without touching the services. Keys are relative, `/`-separated paths made of safe segments
 * (see isSafeKey); a store never sees anything else.
 */

export interface FileInfo {
  size: number;
  modifiedAt: Date;
}

export interface FileStore {
  /**
   * Writes the stream under `key`, replacing any file there. The file appears whole or not at
   * all: a stream that fails or passes `maxBytes` leaves nothing behind (FileTooLargeError).
   */
  put(key: string, body: Readable, opts?: { maxBytes?: number }): Promise<{ size: number }>;
  /** The bytes of `key`, or of the inclusive byte range `start..end`; FileNotFoundError if absent. */
  openRead(key: string, range?: { start: number; end: number }): Promise<Readable>;
  /** Size and modification time, or undefined when there is no such file. */
  stat(key: string): Promise<FileInfo | undefined>;
  /** Removes the file; a missing file is not an error. */
  delete(key: string): Promise<void>;
}

export class FileTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the file is larger than ${limit} bytes`);
    this.name = 'FileTooLargeError';
  }
}

export class FileNotFoundError extends Error {
  constructor() {
    super('no such file');
    this.name = 'FileNotFoundError';
  }
}

export const MAX_KEY_LENGTH = 1024;
const MAX_SEGMENTS = 16;
/** No leading dot: no `.`, no `..`, no hidden files; nothing a shell or a URL treats specially. */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$/;

/** A relative key of safe segments: no traversal, no absolute path, no empty segment. */
export function isSafeKey(key: string): boolean {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) return false;
  const segments = key.split('/');
  return segments.length <= MAX_SEGMENTS && segments.every((s) => SEGMENT.test(s));
}

const MAX_NAME_LENGTH = 200;

/**
 * A client's file name turned into one safe key segment: the last path component, accents
 * dropped, anything outside `A-Za-z0-9._-` replaced by `_`, no leading dots, at most 200
 * characters with the extension kept. Empty when nothing usable is left.
 */
export function safeFileName(raw: string): string {
  const base = raw.split(/[\\/]/).pop() ?? '';
  let name = base
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '');
  if (name.length > MAX_NAME_LENGTH) {
    const dot = name.lastIndexOf('.');
    const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
    name = name.slice(0, MAX_NAME_LENGTH - ext.length) + ext;
  }
  return SEGMENT.test(name) ? name : '';
}

/** The lowercase extension of a file name without its dot, or ''. */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}
