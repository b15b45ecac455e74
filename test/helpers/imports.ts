import http from 'node:http';
import { setTimeout as sleep, setImmediate as tick } from 'node:timers/promises';
import type { TestApp } from './app.js';

/** Rows of the tables an import writes: a refused import must leave them as they were. */
export async function importedRows(t: TestApp) {
  const n = async (table: 'assets' | 'tasks' | 'task_history') =>
    Number(
      (
        await t.store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { assets: await n('assets'), tasks: await n('tasks'), history: await n('task_history') };
}

/**
 * POSTs `text` as JSON over a real socket, chunked (no Content-Length) unless `declared`, `size`
 * bytes at a time with a turn of the event loop between pieces, so the server reads it in many
 * pieces. `pause` stops sending for `ms` once `after` bytes are sent; `early` tells whether the
 * answer came before the whole body was sent.
 */
export function postInPieces(
  url: string,
  apikey: string,
  text: string,
  size: number,
  opts: { pause?: { after: number; ms: number }; declared?: boolean } = {},
) {
  const { pause, declared = false } = opts;
  const bytes = Buffer.from(text, 'utf8');
  return new Promise<{ status: number; body: string; early: boolean }>((resolve, reject) => {
    let answered = false;
    let sent = false;
    const req = http.request(url, {
      method: 'POST',
      agent: false,
      headers: {
        apikey,
        'content-type': 'application/json',
        ...(declared ? { 'content-length': String(bytes.length) } : { 'transfer-encoding': 'chunked' }),
      },
    });
    req.on('response', (r) => {
      answered = true;
      let body = '';
      r.setEncoding('utf8');
      r.on('data', (c: string) => (body += c));
      r.on('end', () => resolve({ status: r.statusCode ?? 0, body, early: !sent }));
    });
    req.on('error', reject);
    void (async () => {
      // A client stops sending once the server has answered (an early 413, say).
      for (let i = 0; i < bytes.length && !answered; i += size) {
        req.write(bytes.subarray(i, i + size));
        await tick();
        if (pause && i < pause.after && i + size >= pause.after) await sleep(pause.ms);
      }
      if (answered) return;
      sent = true;
      req.end();
    })();
  });
}
