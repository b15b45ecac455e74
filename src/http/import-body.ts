import os from 'node:os';
import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { Spool } from '../adapters/storage/listing-spool.js';
import { AppError, badRequest, invalidField } from '../errors.js';
import { AssetInput, ImportAssetsRequest } from '../schemas/asset.js';
import type { AssetInput as AssetItem } from '../services/assets/asset.service.js';
import { ImportScanner, type ScanSink, type ValueKind } from './import-scan.js';
import { FRAMEWORK_MESSAGES, validationErrors } from './plugins/errors.js';
import { MAX_BODY_DEPTH, normalizeInput } from './plugins/nulls.js';

const checkAsset = Compile(AssetInput);
const MAX_ASSETS = 200_000;
/** The request-wide fields, with `assets` standing for its length only. */
const checkTop = Compile(
  Type.Object({
    ...ImportAssetsRequest.properties,
    assets: Type.Array(Type.Unknown(), { minItems: 1, maxItems: MAX_ASSETS }),
  }),
);
/** How long the rest of a body refused as too large may take to arrive before the 413 goes. */
const LINGER_MS = 5_000;
/** Validator issues kept at most: past that, a body is refused with what it has. */
const MAX_ISSUES = 100;

interface Issue {
  instancePath: string;
  keyword: string;
  message: string;
  params: Record<string, unknown>;
}

const frameworkError = (status: 400 | 413, code: string) =>
  new AppError(status === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST', FRAMEWORK_MESSAGES[code] ?? 'bad request');

/**
 * `uploadLocal` as sent: `true`/`false`, or the strings `"true"`/`"false"` in any case (what the
 * Python client sends [client]); `null` counts as absent. Another string is refused by the schema
 * check and counts as false here.
 */
function uploadLocalOf(value: unknown): boolean | undefined {
  if (value === null || value === undefined) return undefined;
  return typeof value === 'string' ? value.toLowerCase() === 'true' : value === true;
}

/** A stand-in of a top-level value's JSON type, for the request-wide schema check. */
function standIn(kind: ValueKind): unknown {
  if (kind === 'object') return {};
  if (kind === 'string') return '';
  if (kind === 'number') return 0.5;
  return kind === 'boolean' ? true : undefined;
}

/** A `__proto__` key, or `constructor.prototype`: refused as the JSON parser of other routes does. */
function poisoned(value: unknown, depth = 0): boolean {
  if (!value || typeof value !== 'object' || depth > MAX_BODY_DEPTH) return false;
  if (Object.hasOwn(value, '__proto__')) return true;
  const ctor = (value as Record<string, unknown>).constructor;
  if (Object.hasOwn(value, 'constructor') && ctor && typeof ctor === 'object' && Object.hasOwn(ctor, 'prototype')) {
    return true;
  }
  for (const key in value) if (poisoned((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}

/**
 * The body of POST /project/{id}/cloud read as it streams in: the assets come out one at a
 * time (`assets()`), checked as the route's schema would check the whole body, and the
 * request-wide fields (`priority`, `uploadLocal`) are known once they have been read. What the
 * whole-body path answered, in the same order, is answered here: a body past the limit (413),
 * then JSON that does not parse (including `__proto__` keys), then the first NUL character or
 * nesting too deep, then schema errors naming each field (`assets[12].data`). Once any of these
 * is found no more assets come out, the rest of the body is still read, and `assets()` ends by
 * throwing the answer, so a consumer that was writing rolls back.
 */
/**
 * `uploadLocal: true` came after the assets, which were read (and written) as links: the import
 * starts again from the whole body, kept as it came (ImportBodyReader.wholeBody).
 */
export class LateUploadLocal extends Error {
  constructor() {
    super('uploadLocal came after the assets');
  }
}

export class ImportBodyReader implements ScanSink {
  priority: number | undefined;
  uploadLocal: boolean | undefined;
  /** Whether each request-wide field came before `assets` (or the whole body has been read). */
  prioritySettled = false;
  uploadLocalSettled = false;
  /** `uploadLocal: true` came before the assets: they are content, not links. */
  inlineFromStart = false;
  private fatal: AppError | undefined;
  private normalizeError: AppError | undefined;
  private readonly issues: Issue[] = [];
  private readonly scanner = new ImportScanner(this);
  private readonly queue: AssetItem[] = [];
  /**
   * The body's bytes, kept (in a temporary file past 1 MiB) until `uploadLocal` is known to
   * have come before the assets or not at all.
   */
  private raw: Spool | undefined = new Spool(os.tmpdir(), 'annotary-import');
  // The body's first value's type, the root object's key being read, the type of `assets`.
  private rootKind: ValueKind | undefined;
  private topKey: string | undefined;
  private assetsKind: ValueKind | undefined;
  private assetsSeen = false;
  private count = 0;
  private received = 0;

  constructor(
    private readonly stream: Readable,
    private readonly limit: number,
    private readonly contentLength: number | undefined,
  ) {
    if (contentLength !== undefined && contentLength > limit)
      this.fatal = frameworkError(413, 'FST_ERR_CTP_BODY_TOO_LARGE');
  }

  /** Whether something is already wrong with the body (nothing should be written). */
  get failed(): boolean {
    return !!(this.fatal ?? this.normalizeError) || this.issues.length > 0;
  }

  // What the scanner finds (ScanSink), in the order it lies in the body.

  root(kind: ValueKind) {
    this.rootKind = kind;
  }

  key(name: string) {
    this.topKey = name;
    if (name === '__proto__') this.fail(frameworkError(400, 'FST_ERR_CTP_INVALID_JSON_BODY'));
    if (name.includes('\u0000')) this.nulIn('body', 'property names must not contain NUL characters');
    if (name === 'assets' && this.assetsSeen) this.fail(invalidField('assets', 'appears twice in the body'));
  }

  valueStart(kind: ValueKind) {
    if (this.topKey !== 'assets') return;
    this.assetsSeen = true;
    this.assetsKind = kind;
    this.prioritySettled ||= this.priority !== undefined;
    this.uploadLocalSettled ||= this.uploadLocal !== undefined;
    this.inlineFromStart = this.uploadLocal === true;
  }

  value(value: unknown) {
    const key = this.topKey;
    if (key === 'priority') this.priority = value === null ? undefined : (value as number);
    if (key === 'uploadLocal') this.uploadLocal = uploadLocalOf(value);
    if (value !== null && (key === 'priority' || key === 'uploadLocal')) {
      for (const issue of checkTop.Errors({ assets: [0], [key]: value })) this.addIssue(issue as Issue);
    }
  }

  items(values: unknown[], first: number) {
    for (let i = 0; i < values.length; i++) this.item(values[i], first + i);
  }

  deep() {
    this.normalizeError ??= badRequest(`the request nests deeper than ${MAX_BODY_DEPTH} levels`);
  }

  nul() {
    // NUL characters outside the assets (which are checked whole, with their paths).
    if (this.topKey !== 'assets') this.nulIn(this.topKey ?? 'body', 'must not contain NUL characters');
  }

  private nulIn(field: string, message: string) {
    this.normalizeError ??= invalidField(field, message);
  }

  private fail(err: AppError) {
    this.fatal ??= err;
  }

  private item(value: unknown, index: number) {
    this.count = index + 1;
    if (this.normalizeError || this.fatal) return;
    if (index >= MAX_ASSETS) return;
    if (poisoned(value)) {
      this.fail(frameworkError(400, 'FST_ERR_CTP_INVALID_JSON_BODY'));
      return;
    }
    try {
      normalizeInput(value, `assets[${index}]`, 2);
    } catch (err) {
      if (err instanceof AppError) this.normalizeError = err;
      return;
    }
    if (this.issues.length >= MAX_ISSUES) return;
    if (!checkAsset.Check(value)) {
      for (const issue of checkAsset.Errors(value)) {
        this.addIssue({ ...(issue as Issue), instancePath: `/assets/${index}${(issue as Issue).instancePath}` });
      }
      return;
    }
    if (!this.failed) this.queue.push(value as AssetItem);
  }

  private addIssue(issue: Issue) {
    if (this.issues.length < MAX_ISSUES) this.issues.push(issue);
  }

  private reading: AsyncGenerator<AssetItem> | undefined;

  /** The body's assets, checked, as they arrive; throws at the end if the body is refused. */
  assets(): AsyncGenerator<AssetItem> {
    this.reading ??= this.read();
    return this.reading;
  }

  private async *read(): AsyncGenerator<AssetItem> {
    if (this.fatal) await this.linger();
    else {
      // Not destroyed when a consumer stops early: drain() reads the rest.
      const pieces = this.stream.iterator({ destroyOnReturn: false });
      while (await this.take(pieces)) {
        while (this.queue.length) yield this.queue.shift() as AssetItem;
      }
    }
    this.finish(this.received);
    while (this.queue.length) yield this.queue.shift() as AssetItem;
    const refusal = this.refusal();
    if (refusal) throw refusal;
  }

  /**
   * Reads the next piece of the body and scans it; false at the body's end, or past its limit.
   * The piece is not held once this returns (the spool and the scanner copy what they keep), so
   * it dies young, while the assets it held are written.
   */
  private async take(pieces: AsyncIterator<unknown>): Promise<boolean> {
    const next = await pieces.next();
    if (next.done) return false;
    const buf = next.value as Buffer;
    this.received += buf.length;
    if (this.received > this.limit) {
      this.fatal = frameworkError(413, 'FST_ERR_CTP_BODY_TOO_LARGE');
      await pieces.return?.();
      await this.linger();
      return false;
    }
    if (this.fatal) return true;
    if (this.uploadLocalSettled) await this.discard();
    else await this.raw?.write(buf);
    try {
      this.scanner.write(buf);
    } catch {
      this.fail(frameworkError(400, 'FST_ERR_CTP_INVALID_JSON_BODY'));
      this.queue.length = 0;
    }
    return true;
  }

  /**
   * Lets the rest of a refused body flow by unread before the 413 is sent: a client still
   * writing when the answer comes, on a connection that then closes, would be reset and could
   * lose the answer (HTTP's "lingering close"). Waits for the body's end, a few seconds at most.
   */
  private async linger(): Promise<void> {
    const stream = this.stream;
    stream.resume();
    if (stream.readableEnded || stream.destroyed) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        stream.off('end', done).off('close', done).off('error', done);
        resolve();
      };
      const timer = setTimeout(done, LINGER_MS);
      stream.once('end', done).once('close', done).once('error', done);
    });
  }

  private finish(received: number) {
    this.prioritySettled = true;
    this.uploadLocalSettled = true;
    if (this.fatal) return;
    if (this.contentLength !== undefined && received !== this.contentLength) {
      this.fatal = frameworkError(400, 'FST_ERR_CTP_INVALID_CONTENT_LENGTH');
      return;
    }
    if (this.rootKind === undefined) {
      // Nothing or whitespace only: no body, as for every JSON route.
      this.addIssue(this.bodyMissing());
      return;
    }
    try {
      this.scanner.end();
    } catch {
      this.fail(frameworkError(400, 'FST_ERR_CTP_INVALID_JSON_BODY'));
      return;
    }
    if (this.rootKind !== 'object') {
      this.addIssue(this.bodyMissing());
      return;
    }
    // The assets' count is checked here, not through a stand-in array as long as the request.
    const top: Record<string, unknown> = {};
    if (this.assetsKind === 'array') top.assets = [0];
    else if (this.assetsKind !== undefined && standIn(this.assetsKind) !== undefined) {
      top.assets = standIn(this.assetsKind);
    }
    if (!checkTop.Check(top)) for (const issue of checkTop.Errors(top)) this.addIssue(issue as Issue);
    if (this.assetsKind === 'array' && (this.count < 1 || this.count > MAX_ASSETS)) {
      const few = this.count < 1;
      this.addIssue({
        instancePath: '/assets',
        keyword: few ? 'minItems' : 'maxItems',
        message: few ? 'must not have fewer than 1 items' : `must not have more than ${MAX_ASSETS} items`,
        params: { limit: few ? 1 : MAX_ASSETS },
      });
    }
  }

  private bodyMissing(): Issue {
    return { instancePath: '', keyword: 'type', message: 'must be object', params: { type: 'object' } };
  }

  /** What the body is refused with, in the order the whole-body path answered. */
  private refusal(): AppError | undefined {
    if (this.fatal) return this.fatal;
    if (this.normalizeError) return this.normalizeError;
    if (!this.issues.length) {
      // Read as links, the assets are read again, as content, from the body kept whole.
      if (this.uploadLocal === true && !this.inlineFromStart) throw new LateUploadLocal();
      return undefined;
    }
    const errors = validationErrors(this.issues, 'body');
    const first = errors[0];
    const message =
      errors.length === 1 && first ? `${first.field}: ${first.message}` : `${errors.length} fields are invalid`;
    return new AppError('VALIDATION', message, errors);
  }

  /**
   * The body parsed whole, once it has been read and found good, when `uploadLocal: true` came
   * after the assets (LateUploadLocal): its assets and request-wide fields were checked as they
   * streamed in.
   */
  async wholeBody(): Promise<{ assets: AssetItem[]; priority: number | undefined }> {
    if (!this.raw) throw new Error('the body was not kept');
    const parts: Buffer[] = [];
    for await (const part of this.raw.chunks()) parts.push(Buffer.from(part));
    this.raw = undefined;
    const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { assets: AssetItem[] };
    return { assets: body.assets, priority: this.priority };
  }

  /** Drops the body's copy, if one is kept. */
  async discard(): Promise<void> {
    const raw = this.raw;
    this.raw = undefined;
    await raw?.discard();
  }

  /** Reads what is left of the body and throws what it is refused with, if anything. */
  async drain(): Promise<void> {
    const it = this.assets();
    for (let r = await it.next(); !r.done; r = await it.next()) void r;
    const refusal = this.refusal();
    if (refusal) throw refusal;
  }
}
