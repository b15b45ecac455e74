import { MAX_BODY_DEPTH } from './plugins/nulls.js';

/** The JSON type of a value, from its first byte. */
export type ValueKind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

/** What the scanner finds, in the order it lies in the body. */
export interface ScanSink {
  /** The body's first value begins (an object is read key by key; anything else whole). */
  root(kind: ValueKind): void;
  /** A key of the root object. */
  key(name: string): void;
  /** The value of the last key begins. */
  valueStart(kind: ValueKind): void;
  /** The value of the last key, parsed, unless it is the `assets` array (whose items come instead). */
  value(value: unknown): void;
  /** Items of the `assets` array, parsed, the first being item `first`. */
  items(values: unknown[], first: number): void;
  /** Something nests deeper than MAX_BODY_DEPTH: before the `assets` item it is in, if it is in one. */
  deep(): void;
  /** A string (or key) inside a value of the root object other than the `assets` array has a NUL. */
  nul(): void;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

// Where the scanner is between values (the structure it checks itself).
const ROOT = 0; // before the body's value
const FIRST_KEY = 1; // after `{`: a key or `}`
const KEY = 2; // after `,`: a key
const KEY_COLON = 3; // after a key: `:`
const VALUE = 4; // after `:`: a value
const AFTER_VALUE = 5; // `,` or `}`
const FIRST_ITEM = 6; // after the assets' `[`: an item or `]`
const ITEM = 7; // after `,`: an item
const AFTER_ITEM = 8; // `,` or `]`
const END = 9; // whitespace only

// What the value being read is.
const NONE = 0;
const CAPTURE_KEY = 1;
const CAPTURE_VALUE = 2;
const CAPTURE_ITEM = 3;
const CAPTURE_ROOT = 4;

function kindOf(b: number): ValueKind {
  if (b === OPEN_BRACE) return 'object';
  if (b === OPEN_BRACKET) return 'array';
  if (b === QUOTE) return 'string';
  if (b === 0x74 || b === 0x66) return 'boolean';
  if (b === 0x6e) return 'null';
  return 'number';
}

/**
 * Reads the body of POST /project/{id}/cloud as its bytes arrive and parses it a value at a
 * time with `JSON.parse`: it follows the root object's keys and the `assets` array's items
 * itself, and finds where each value ends by its strings (with their escapes) and brackets
 * only. Items that end in one piece of the body are parsed together, one `JSON.parse` for the
 * run of them; an item cut between two pieces is parsed alone once whole. A token-by-token
 * parser allocated an object per token: 570 MB of garbage for a 100,000-asset import.
 *
 * Every byte is checked: a value by `JSON.parse` (so a body is accepted exactly when it is
 * valid JSON), what lies between values here. `write` and `end` throw a SyntaxError at the
 * first fault; after one, the scanner is not to be used again.
 */
export class ImportScanner {
  private state = ROOT;
  private capture = NONE;
  private lastKey = '';
  private inAssets = false;
  private itemIndex = 0;
  // The value being read: where it began in this piece (or in `parts`, from earlier pieces).
  private start = 0;
  private parts: Buffer[] = [];
  /** Absolute depth of the value being read, and how deep inside it the scanner is. */
  private base = 0;
  private depth = 0;
  private scalar = false;
  private inString = false;
  /** In a string: 0, or 1 after a backslash, 2 to 5 in the hex digits of `\u`. */
  private escape = 0;
  private zeroEscape = false;
  private stringIsNul = false;
  private deepInValue = false;
  // Items read whole in this piece, not yet parsed: from `runStart` to `runEnd`.
  private runStart = -1;
  private runEnd = 0;
  private runFirst = 0;
  private runCount = 0;

  constructor(private readonly sink: ScanSink) {}

  /** Whether the body had anything but whitespace. */
  get started(): boolean {
    return this.state !== ROOT || this.capture !== NONE;
  }

  write(buf: Buffer): void {
    let i = 0;
    const n = buf.length;
    while (i < n) {
      if (this.capture !== NONE) {
        const end = this.scanValue(buf, i);
        if (end < 0) break;
        this.valueDone(buf, end);
        i = end;
        continue;
      }
      const b = buf[i] as number;
      if (isSpace(b)) {
        i++;
        continue;
      }
      i = this.structure(buf, i, b);
    }
    this.flushRun(buf);
    if (this.capture !== NONE) {
      this.parts.push(Buffer.from(buf.subarray(this.parts.length ? 0 : this.start)));
    }
  }

  /** The body has all arrived: throws if it is not one whole JSON value. */
  end(): void {
    if (this.capture !== NONE && this.scalar && this.capture === CAPTURE_ROOT) {
      // A number or literal at the root ends with the body.
      this.valueDone(Buffer.alloc(0), 0);
    }
    if (this.capture !== NONE || (this.state !== END && this.state !== ROOT)) throw new SyntaxError('unexpected end');
  }

  /** A byte between values: checks it belongs there; answers where to go on from. */
  private structure(buf: Buffer, i: number, b: number): number {
    switch (this.state) {
      case ROOT:
        this.sink.root(kindOf(b));
        if (b === OPEN_BRACE) {
          this.state = FIRST_KEY;
          return i + 1;
        }
        return this.begin(CAPTURE_ROOT, buf, i, 0);
      case FIRST_KEY:
      case KEY:
        if (b === CLOSE_BRACE && this.state === FIRST_KEY) {
          this.state = END;
          return i + 1;
        }
        if (b !== QUOTE) break;
        return this.begin(CAPTURE_KEY, buf, i, 1);
      case KEY_COLON:
        if (b !== COLON) break;
        this.state = VALUE;
        return i + 1;
      case VALUE:
        if (b === COMMA || b === CLOSE_BRACE || b === CLOSE_BRACKET || b === COLON) break;
        this.sink.valueStart(kindOf(b));
        if (b === OPEN_BRACKET && this.lastKey === 'assets') {
          this.inAssets = true;
          this.itemIndex = 0;
          this.state = FIRST_ITEM;
          return i + 1;
        }
        return this.begin(CAPTURE_VALUE, buf, i, 1);
      case AFTER_VALUE:
        if (b === COMMA) this.state = KEY;
        else if (b === CLOSE_BRACE) this.state = END;
        else break;
        return i + 1;
      case FIRST_ITEM:
      case ITEM:
        if (b === CLOSE_BRACKET && this.state === FIRST_ITEM) {
          this.inAssets = false;
          this.state = AFTER_VALUE;
          return i + 1;
        }
        if (b === COMMA || b === CLOSE_BRACE || b === CLOSE_BRACKET || b === COLON) break;
        return this.begin(CAPTURE_ITEM, buf, i, 2);
      case AFTER_ITEM:
        if (b === COMMA) this.state = ITEM;
        else if (b === CLOSE_BRACKET) {
          this.flushRun(buf);
          this.inAssets = false;
          this.state = AFTER_VALUE;
        } else break;
        return i + 1;
    }
    throw new SyntaxError(`unexpected byte ${b} at state ${this.state}`);
  }

  /** Starts reading a value (or key) whose first byte is at `i`, at absolute depth `base`. */
  private begin(capture: number, buf: Buffer, i: number, base: number): number {
    const b = buf[i] as number;
    this.capture = capture;
    this.start = i;
    this.base = base;
    this.depth = 0;
    this.deepInValue = false;
    this.scalar = b !== QUOTE && b !== OPEN_BRACE && b !== OPEN_BRACKET;
    this.inString = false;
    this.escape = 0;
    return i;
  }

  /**
   * Reads the value being captured from `i` on: answers the index just past its end, or -1
   * if it goes on past this piece.
   */
  private scanValue(buf: Buffer, from: number): number {
    const n = buf.length;
    const max = MAX_BODY_DEPTH - this.base;
    let depth = this.depth;
    let inString = this.inString;
    let i = from;
    if (this.scalar) {
      for (; i < n; i++) {
        const b = buf[i] as number;
        if (isSpace(b) || b === COMMA || b === CLOSE_BRACE || b === CLOSE_BRACKET) return i;
      }
      return -1;
    }
    for (; i < n; i++) {
      const b = buf[i] as number;
      if (inString) {
        if (this.escape !== 0) {
          this.escapeByte(b);
          continue;
        }
        if (b === BACKSLASH) this.escape = 1;
        else if (b === QUOTE) {
          inString = false;
          if (this.stringIsNul) this.stringNul(depth);
          if (depth === 0) {
            this.depth = 0;
            this.inString = false;
            return i + 1;
          }
        }
        continue;
      }
      if (b === QUOTE) {
        if (depth > max) this.tooDeep();
        inString = true;
        this.stringIsNul = false;
      } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
        if (depth > max) this.tooDeep();
        depth++;
      } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
        if (--depth === 0) {
          this.depth = 0;
          return i + 1;
        }
      } else if (depth > max && !isSpace(b) && b !== COMMA && b !== COLON) this.tooDeep();
    }
    this.depth = depth;
    this.inString = inString;
    return -1;
  }

  /** A byte after a backslash in a string: follows `\u0000` (a NUL character). */
  private escapeByte(b: number) {
    if (this.escape === 1) {
      this.escape = b === 0x75 ? 2 : 0;
      this.zeroEscape = true;
      return;
    }
    if (b !== 0x30) this.zeroEscape = false;
    if (++this.escape === 6) {
      this.escape = 0;
      if (this.zeroEscape) this.stringIsNul = true;
    }
  }

  private tooDeep() {
    if (this.deepInValue) return;
    this.deepInValue = true;
    // An item's depth is told before the item itself; another value's where it is found.
    if (this.capture !== CAPTURE_ITEM) this.sink.deep();
  }

  /** A string with a NUL character ended, `depth` levels inside the value being read. */
  private stringNul(depth: number) {
    this.stringIsNul = false;
    // Inside the assets' items NUL characters are found with their field's path, by the reader.
    if (this.capture === CAPTURE_VALUE || (this.capture === CAPTURE_ROOT && depth > 0)) this.sink.nul();
  }

  /** The value being captured ended just before `end` in `buf`. */
  private valueDone(buf: Buffer, end: number) {
    const capture = this.capture;
    this.capture = NONE;
    if (capture === CAPTURE_ITEM) {
      this.state = AFTER_ITEM;
      this.itemDone(buf, end);
      return;
    }
    const value = JSON.parse(this.text(buf, end)) as unknown;
    if (capture === CAPTURE_KEY) {
      this.lastKey = value as string;
      this.sink.key(this.lastKey);
      this.state = KEY_COLON;
    } else if (capture === CAPTURE_VALUE) {
      this.sink.value(value);
      this.state = AFTER_VALUE;
    } else this.state = END;
  }

  /** The captured bytes as text: from `start` in this piece, or from earlier pieces on. */
  private text(buf: Buffer, end: number): string {
    if (!this.parts.length) return buf.toString('utf8', this.start, end);
    this.parts.push(buf.subarray(0, end));
    const whole = Buffer.concat(this.parts);
    this.parts = [];
    return whole.toString('utf8');
  }

  private itemDone(buf: Buffer, end: number) {
    const index = this.itemIndex++;
    if (this.parts.length || this.deepInValue) {
      this.flushRun(buf);
      if (this.deepInValue) this.sink.deep();
      this.sink.items([JSON.parse(this.text(buf, end))], index);
      return;
    }
    if (this.runStart < 0) {
      this.runStart = this.start;
      this.runFirst = index;
      this.runCount = 0;
    }
    this.runEnd = end;
    this.runCount++;
  }

  /** Parses the items read whole in this piece, in one `JSON.parse`. */
  private flushRun(buf: Buffer) {
    if (this.runStart < 0) return;
    const text = buf.toString('utf8', this.runStart, this.runEnd);
    this.runStart = -1;
    const values = JSON.parse(`[${text}]`) as unknown[];
    if (values.length !== this.runCount) throw new SyntaxError('items do not match');
    this.sink.items(values, this.runFirst);
  }
}
