import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString } from 'pino';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Logger = FastifyBaseLogger & { isLevelEnabled?: (level: LevelWithSilentOrString) => boolean };

/**
 * A request's logger (`req.log`) that becomes a pino child only when something is logged
 * through it. Fastify makes a child of the app's logger for every request, to bind the request
 * id; pino then serialises the bindings and sets up its redaction for each one, a few per cent
 * of a simple read, while most requests log nothing through it (the line every request writes is
 * written by the app's logger, with the id: `app.ts`). What it logs, and how, is the child's.
 */
class RequestLogger implements FastifyBaseLogger {
  #parent: Logger;
  #bindings: Bindings;
  #options: ChildLoggerOptions;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: Logger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  #real(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }

  #log(level: Level, args: unknown[]): void {
    if (!this.#child && this.#parent.isLevelEnabled && !this.#parent.isLevelEnabled(level)) return;
    (this.#real()[level] as (...a: unknown[]) => void)(...args);
  }

  get level(): string {
    return (this.#child ?? this.#parent).level;
  }

  set level(level: string) {
    this.#real().level = level;
  }

  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }

  error(...args: unknown[]): void {
    this.#log('error', args);
  }

  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }

  info(...args: unknown[]): void {
    this.#log('info', args);
  }

  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }

  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }

  isLevelEnabled(level: LevelWithSilentOrString): boolean {
    const logger = (this.#child ?? this.#parent) as Logger;
    return logger.isLevelEnabled ? logger.isLevelEnabled(level) : true;
  }

  silent(): void {
    // Nothing: the level that logs nothing.
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options);
  }
}

/**
 * Fastify's `childLoggerFactory`: a lazy child, unless the route sets a level or serialisers of
 * its own (then the child is made at once, as Fastify does).
 */
export const requestLoggerFactory: NonNullable<FastifyServerOptions['childLoggerFactory']> = function (
  logger,
  bindings,
  options,
) {
  if (options.level !== undefined || options.serializers !== undefined) return logger.child(bindings, options);
  return new RequestLogger(logger, bindings, options);
};
