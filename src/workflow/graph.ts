import type { FieldError } from '../errors.js';
import {
  ADJUDICATION_METHODS,
  CONSENSUS_LIMITS,
  DURATION_OPERATORS,
  LOGIC_TYPES,
  STAGE_TYPES,
  TOOL_FILTER_PATTERN,
  WEBHOOK_AUTH_TYPES,
  WEBHOOK_LIMITS,
  WEBHOOK_METHODS,
  type Stage,
} from '../schemas/stage.js';

/**
 * The workflow rules JSON Schema cannot express (DECISIONS 3 and 4), run after the shape check
 * on every write of `stages`. Inputs are `unknown` so non-HTTP callers get the same answers.
 * The returned value is the stored form: nulls dropped, `next` always an array, defaults filled;
 * it is meaningful only when `errors` is empty.
 */

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const within = (v: unknown, min: number, max: number) => typeof v === 'number' && v >= min && v <= max;
const oneOf = (list: readonly unknown[], v: unknown) => list.includes(v);
const nonEmpty = (v: unknown) => typeof v === 'string' && v.trim() !== '';

const TERMINAL = new Set(['Complete', 'Archive']);
/** Stages that leave by next[0] (DECISIONS 4), so they need one. */
const SINGLE_EXIT = new Set(['Start', 'Label', 'Hold', 'Webhook', 'Plugin']);
const FILTER = new RegExp(TOOL_FILTER_PATTERN);

/** Drops null-valued properties (null counts as absent, DECISIONS 1); other values as sent. */
function compact(v: unknown): Rec {
  return isRec(v) ? Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null)) : {};
}

class WorkflowChecker {
  readonly errors: FieldError[] = [];
  private readonly firstIndex = new Map<string, number>();
  /** sub-stage id -> its Consensus stage id */
  private readonly subStageOf = new Map<string, string>();

  constructor(
    private readonly stages: Rec[],
    private readonly base: string,
  ) {}

  /** Records `message` at `rest` of stage `i` unless `ok`; returns `ok` so callers can chain. */
  private check(ok: boolean, i: number, rest: string, message: string): boolean {
    if (!ok) this.errors.push({ field: i < 0 ? this.base : `${this.base}[${i}]${rest}`, message });
    return ok;
  }

  run(): void {
    const starts: number[] = [];
    this.stages.forEach((s, i) => {
      const id = s['id'];
      if (s['type'] === 'Start') starts.push(i);
      if (!this.check(nonEmpty(id), i, '.id', 'is required')) return;
      const first = this.firstIndex.get(id as string);
      if (this.check(first === undefined, i, '.id', `duplicate stage id '${id}' (first at ${this.base}[${first}])`)) {
        this.firstIndex.set(id as string, i);
      }
      if (typeof s['consensusId'] === 'string') this.subStageOf.set(id as string, s['consensusId']);
    });
    this.check(starts.length > 0, -1, '', 'the workflow needs exactly one Start stage');
    for (const i of starts.slice(1)) this.check(false, i, '.type', 'only one Start stage is allowed');
    this.stages.forEach((s, i) => this.stage(s, i));
  }

  private stage(s: Rec, i: number): void {
    const type = s['type'] as string;
    const next = s['next'] as unknown[];
    next.forEach((target, k) => {
      const t = String(target);
      if (!this.check(this.firstIndex.has(t), i, `.next[${k}]`, `no stage has id '${t}'`)) return;
      const host = this.subStageOf.get(t);
      // A Consensus stage naming its own sub-stage is reported by consensus(), once.
      const viaHost = host === undefined || host === s['id'];
      this.check(viaHost, i, `.next[${k}]`, `'${t}' is a consensus sub-stage, entered only through '${host}'`);
    });
    if (!this.check(oneOf(STAGE_TYPES, type), i, '.type', `must be one of ${STAGE_TYPES.join(', ')}`)) return;
    const consensusId = s['consensusId'];
    if (consensusId !== undefined) {
      const host = this.stages[this.firstIndex.get(String(consensusId)) ?? -1];
      this.check(host?.['type'] === 'Consensus', i, '.consensusId', `no Consensus stage has id '${consensusId}'`);
    }
    const needsExit = SINGLE_EXIT.has(type) && consensusId === undefined;
    this.check(!TERMINAL.has(type) || next.length === 0, i, '.next', `a ${type} stage is terminal and has no next`);
    this.check(!needsExit || next.length > 0, i, '.next', `a ${type} stage needs a next stage`);
    if (type === 'Review')
      this.check(next.length === 2, i, '.next', 'a Review stage has 2 next stages (accepted, rejected)');
    if (type === 'Plugin') this.check(nonEmpty(s['pluginId']), i, '.pluginId', 'is required on a Plugin stage');
    if (type === 'Logic') this.logic(s, i, next.length);
    if (type === 'Webhook') this.webhook(s, i);
    if (type === 'Consensus') this.consensus(s, i);
  }

  private logic(s: Rec, i: number, exits: number): void {
    this.check(exits > 0, i, '.next', 'a Logic stage needs a next stage (the last one is the else output)');
    if (!this.check(isRec(s['logic']), i, '.logic', 'is required on a Logic stage')) return;
    const logic = compact(s['logic']);
    const types = `must be one of ${LOGIC_TYPES.join(', ')}`;
    this.check(logic['type'] === undefined || oneOf(LOGIC_TYPES, logic['type']), i, '.logic.type', types);
    const list = logic['conditions'] ?? [];
    if (!this.check(Array.isArray(list), i, '.logic.conditions', 'must be an array')) return;
    const conditions = (list as unknown[]).map(compact);
    conditions.forEach((c, k) => {
      const at = `.logic.conditions[${k}]`;
      const value = compact(c['value']);
      this.check(oneOf(LOGIC_TYPES, c['type']), i, `${at}.type`, types);
      const inNext = isInt(c['index']) && within(c['index'], 0, exits - 1);
      this.check(inNext, i, `${at}.index`, `must be an integer index into next (0 to ${exits - 1})`);
      if (c['type'] === 'RandomSample') {
        this.check(within(value['sampleRate'], 0, 1), i, `${at}.value.sampleRate`, 'must be a number from 0 to 1');
      }
      if (c['type'] === 'Duration') {
        const ops = `must be one of ${DURATION_OPERATORS.join(', ')}`;
        this.check(oneOf(DURATION_OPERATORS, value['operator']), i, `${at}.value.operator`, ops);
        const ms = within(value['duration'], 0, Number.MAX_SAFE_INTEGER);
        this.check(ms, i, `${at}.value.duration`, 'must be a non-negative number of milliseconds');
      }
      const tools = c['type'] === 'AnnotationType' && Array.isArray(value['tools']) ? value['tools'] : [];
      tools.forEach((t: unknown, ti) => {
        const filters = isRec(t) && Array.isArray(t['filter']) ? t['filter'] : [];
        filters.forEach((f: unknown, fi) => {
          const form = typeof f === 'string' && FILTER.test(f);
          this.check(form, i, `${at}.value.tools[${ti}].filter[${fi}]`, 'must be exists___<id> or not-exist___<id>');
        });
      });
      c['value'] = value;
    });
    s['logic'] = { ...logic, value: logic['value'] ?? {}, conditions };
  }

  private webhook(s: Rec, i: number): void {
    if (!this.check(isRec(s['webhook']), i, '.webhook', 'is required on a Webhook stage')) return;
    const w = compact(s['webhook']);
    w['method'] ??= 'POST';
    w['authType'] ??= 'no_auth';
    w['timeout'] ??= 30_000;
    w['retryCount'] ??= 3;
    const { timeoutMin: t0, timeoutMax: t1, retryMin: r0, retryMax: r1 } = WEBHOOK_LIMITS;
    this.check(isHttpUrl(w['url']), i, '.webhook.url', 'must be an http(s) URL');
    this.check(oneOf(WEBHOOK_METHODS, w['method']), i, '.webhook.method', `must be ${WEBHOOK_METHODS.join(' or ')}`);
    const auth = `must be one of ${WEBHOOK_AUTH_TYPES.join(', ')}`;
    this.check(oneOf(WEBHOOK_AUTH_TYPES, w['authType']), i, '.webhook.authType', auth);
    // A credential kept from the stored stage arrives sealed (services/projects/webhook-credentials).
    const secretOk = w['authType'] !== 'secret' || nonEmpty(w['secret']) || nonEmpty(w['sealedSecret']);
    this.check(secretOk, i, '.webhook.secret', 'is required when authType is secret');
    const tokenOk = w['authType'] !== 'bearer_token' || nonEmpty(w['token']) || nonEmpty(w['sealedToken']);
    this.check(tokenOk, i, '.webhook.token', 'is required when authType is bearer_token');
    const timeoutOk = isInt(w['timeout']) && within(w['timeout'], t0, t1);
    this.check(timeoutOk, i, '.webhook.timeout', `must be an integer from ${t0} to ${t1} (milliseconds)`);
    const retryOk = isInt(w['retryCount']) && within(w['retryCount'], r0, r1);
    this.check(retryOk, i, '.webhook.retryCount', `must be an integer from ${r0} to ${r1}`);
    s['webhook'] = w;
  }

  private consensus(s: Rec, i: number): void {
    const id = String(s['id']);
    const subs = this.stages.flatMap((x, j) => (x['consensusId'] === id ? [j] : []));
    const { minSubStages: lo, maxSubStages: hi, minCopies: least, maxCopies: most } = CONSENSUS_LIMITS;
    const countOk = subs.length >= lo && subs.length <= hi;
    this.check(countOk, i, '', `needs ${lo} to ${hi} sub-stages with consensusId '${id}'; found ${subs.length}`);
    for (const j of subs) {
      const sub = this.stages[j] as Rec;
      const kindOk = sub['type'] === 'Label' || sub['type'] === 'Plugin';
      this.check(kindOk, j, '.type', 'a consensus sub-stage must be a Label or Plugin stage');
      const back = sub['next'] as unknown[];
      this.check(back.length === 1 && back[0] === id, j, '.next', `a consensus sub-stage's next must be ['${id}']`);
    }
    const next = s['next'] as unknown[];
    this.check(next.length === 2, i, '.next', 'a Consensus stage has 2 next stages (pass, fail)');
    next.forEach((target, k) => {
      const own = target === id || this.subStageOf.get(String(target)) === id;
      this.check(!own, i, `.next[${k}]`, 'must not be the Consensus stage itself or one of its sub-stages');
    });
    if (!this.check(isRec(s['consensusConfig']), i, '.consensusConfig', 'is required on a Consensus stage')) return;
    const c = compact(s['consensusConfig']);
    c['version'] ??= 2;
    c['adjudicationMethod'] ??= 'majority';
    c['dynamicConsensus'] ??= false;
    c['minCopies'] ??= least;
    // The contract's default of 5 yields to a larger minCopies rather than contradicting it.
    c['maxCopies'] ??= Math.max(5, isInt(c['minCopies']) ? c['minCopies'] : 0);
    const [min, max] = [c['minCopies'], c['maxCopies']];
    const at = '.consensusConfig';
    this.check(c['version'] === 1 || c['version'] === 2, i, `${at}.version`, 'must be 1 or 2');
    this.check(within(c['threshold'], 0, 1), i, `${at}.threshold`, 'is required, a number from 0 to 1');
    const methods = `must be one of ${ADJUDICATION_METHODS.join(', ')}`;
    this.check(oneOf(ADJUDICATION_METHODS, c['adjudicationMethod']), i, `${at}.adjudicationMethod`, methods);
    this.check(isInt(min) && min >= least, i, `${at}.minCopies`, `must be an integer of at least ${least}`);
    const maxOk = isInt(max) && max <= most && (!isInt(min) || max >= min);
    this.check(maxOk, i, `${at}.maxCopies`, `must be an integer from minCopies to ${most}`);
    s['consensusConfig'] = c;
  }
}

function isHttpUrl(v: unknown): boolean {
  if (typeof v !== 'string' || !URL.canParse(v)) return false;
  const { protocol, hostname } = new URL(v);
  return (protocol === 'http:' || protocol === 'https:') && hostname !== '';
}

/** Copies a stage into its stored form: nulls dropped, `next` an array, flags defaulted. */
function normalizeStage(input: unknown): Rec {
  const s = compact(input);
  s['next'] = Array.isArray(s['next']) ? [...s['next']] : [];
  s['rememberAssignee'] ??= false;
  s['readOnly'] ??= false;
  s['preventRequeue'] ??= false;
  if (s['type'] === 'Start') s['autoForward'] ??= true;
  return s;
}

/** Checks a workflow (already shape-checked) and returns the stages to store. */
export function validateWorkflow(stages: unknown, basePath = 'stages'): { value: Stage[]; errors: FieldError[] } {
  if (!Array.isArray(stages))
    return { value: [], errors: [{ field: basePath, message: 'must be an array of stages' }] };
  const normalized = stages.map(normalizeStage);
  const checker = new WorkflowChecker(normalized, basePath);
  checker.run();
  return { value: normalized as Stage[], errors: checker.errors };
}

export const stageById = (stages: readonly Stage[], id: string): Stage | undefined => stages.find((s) => s.id === id);
export const startStage = (stages: readonly Stage[]): Stage | undefined => stages.find((s) => s.type === 'Start');
export const isTerminalStage = (stage: Pick<Stage, 'type'>): boolean => TERMINAL.has(stage.type);
/** The Label/Plugin stages working copies for the Consensus stage `consensusId`. */
export const consensusSubStages = (stages: readonly Stage[], consensusId: string): Stage[] =>
  stages.filter((s) => s.consensusId === consensusId);

const plain = (id: 'Start' | 'Label' | 'Complete', next: string[], x: number): Stage => ({
  ...{ id, name: id, type: id, next, position: { x, y: 200 } },
  ...{ rememberAssignee: false, readOnly: false, preventRequeue: false },
});

/** A fresh copy of the default workflow, Start -> Label -> Complete (DECISIONS 1 and 3). */
export function defaultWorkflow(): Stage[] {
  return [
    { ...plain('Start', ['Label'], 100), autoForward: true },
    { ...plain('Label', ['Complete'], 400), assignedTo: [] },
    plain('Complete', [], 700),
  ];
}

/** The default workflow in its stored form, frozen: take defaultWorkflow() to edit one. */
export const DEFAULT_WORKFLOW: readonly Stage[] = Object.freeze(
  defaultWorkflow().map((s) => Object.freeze({ ...s, next: Object.freeze([...(s.next ?? [])]) }) as Stage),
);
