import { describe, expect, it } from 'vitest';
import {
  DEFAULT_WORKFLOW,
  consensusSubStages,
  defaultWorkflow,
  isTerminalStage,
  stageById,
  startStage,
  validateWorkflow,
} from '../../src/workflow/graph.js';

type S = Record<string, unknown>;
const st = (id: string, type: string, next: string[] = [], extra: S = {}): S => ({ id, type, next, ...extra });
const fields = (stages: unknown) => validateWorkflow(stages).errors.map((e) => e.field);

const hook = { url: 'https://hooks.example.com/annotary' };
/** Start -> Label -> Review -> (accepted) Webhook -> Complete, (rejected) back to Label. */
const fiveStages = (): S[] => [
  st('start', 'Start', ['label']),
  st('label', 'Label', ['review']),
  st('review', 'Review', ['hook', 'label']),
  st('hook', 'Webhook', ['done'], { webhook: { ...hook } }),
  st('done', 'Complete'),
];
const logicFlow = (logic: unknown, next = ['a', 'b']): S[] => [
  st('s', 'Start', ['l']),
  st('l', 'Logic', next, { logic }),
  st('a', 'Complete'),
  st('b', 'Archive'),
];
const cond = (extra: S) => ({ conditions: [{ type: 'RandomSample', index: 0, value: { sampleRate: 0.5 }, ...extra }] });
/** Start -> C (consensus of c1, c2) -> pass: done, fail: arch. */
const consensusFlow = (config: S = { threshold: 0.8 }): S[] => [
  st('s', 'Start', ['C']),
  st('C', 'Consensus', ['done', 'arch'], { consensusConfig: config }),
  st('c1', 'Label', ['C'], { consensusId: 'C' }),
  st('c2', 'Plugin', ['C'], { consensusId: 'C', pluginId: 'p1' }),
  st('done', 'Complete'),
  st('arch', 'Archive'),
];

describe('default and passing workflows', () => {
  it('the default workflow passes and is already in its stored form', () => {
    const r = validateWorkflow(DEFAULT_WORKFLOW);
    expect(r.errors).toEqual([]);
    expect(r.value).toEqual(DEFAULT_WORKFLOW);
    expect(DEFAULT_WORKFLOW.map((s) => s.id)).toEqual(['Start', 'Label', 'Complete']);
    expect(Object.isFrozen(DEFAULT_WORKFLOW[0])).toBe(true);
    expect(defaultWorkflow()).toEqual(DEFAULT_WORKFLOW);
  });

  it('a five-stage Start/Label/Review/Webhook/Complete workflow passes with defaults filled', () => {
    const r = validateWorkflow(fiveStages());
    expect(r.errors).toEqual([]);
    expect(r.value[0]).toMatchObject({
      autoForward: true,
      rememberAssignee: false,
      readOnly: false,
      preventRequeue: false,
    });
    expect(r.value[3]?.webhook).toEqual({
      ...hook,
      method: 'POST',
      authType: 'no_auth',
      timeout: 30000,
      retryCount: 3,
    });
    expect(r.value[4]?.next).toEqual([]);
  });

  it('drops nulls, keeps unknown properties and keeps autoForward when given', () => {
    const stages = fiveStages();
    stages[0] = { ...stages[0], autoForward: false, name: null, custom: { a: 1 } };
    const r = validateWorkflow(stages);
    expect(r.errors).toEqual([]);
    expect(r.value[0]).toMatchObject({ autoForward: false, custom: { a: 1 } });
    expect(r.value[0]).not.toHaveProperty('name');
  });

  it('a consensus workflow passes with its config defaults', () => {
    const r = validateWorkflow(consensusFlow());
    expect(r.errors).toEqual([]);
    expect(r.value[1]?.consensusConfig).toEqual({
      threshold: 0.8,
      version: 2,
      adjudicationMethod: 'majority',
      dynamicConsensus: false,
      minCopies: 2,
      maxCopies: 5,
    });
  });

  it('refuses a non-array', () => {
    expect(fields({})).toEqual(['stages']);
  });
});

describe('graph rules', () => {
  it('ids are unique', () => {
    const stages = fiveStages();
    stages[4] = st('hook', 'Complete');
    expect(fields(stages)).toContain('stages[4].id');
  });

  it('exactly one Start', () => {
    expect(fields(fiveStages().slice(1))).toEqual(['stages']);
    expect(fields([...fiveStages(), st('s2', 'Start', ['label'])])).toEqual(['stages[5].type']);
  });

  it('every next id exists', () => {
    const stages = fiveStages();
    stages[1] = st('label', 'Label', ['nowhere']);
    expect(fields(stages)).toEqual(['stages[1].next[0]']);
  });

  it('Complete and Archive have no next', () => {
    const stages = fiveStages();
    stages[4] = st('done', 'Complete', ['label']);
    expect(fields(stages)).toEqual(['stages[4].next']);
    expect(fields([st('s', 'Start', ['a']), st('a', 'Archive', ['s'])])).toEqual(['stages[1].next']);
  });

  it.each(['Start', 'Label', 'Hold', 'Webhook', 'Plugin'])('a %s stage needs next[0]', (type) => {
    const extra = type === 'Webhook' ? { webhook: hook } : type === 'Plugin' ? { pluginId: 'p' } : {};
    const stages = [st('s', 'Start', ['x']), st('x', type, [], extra)];
    if (type === 'Start') stages.splice(0, 2, st('x', 'Start'));
    expect(fields(stages)).toEqual([type === 'Start' ? 'stages[0].next' : 'stages[1].next']);
  });

  it('Review has exactly 2 outputs', () => {
    const stages = fiveStages();
    stages[2] = st('review', 'Review', ['hook']);
    expect(fields(stages)).toEqual(['stages[2].next']);
  });

  it('Plugin needs a pluginId', () => {
    expect(fields([st('s', 'Start', ['p']), st('p', 'Plugin', ['d']), st('d', 'Complete')])).toEqual([
      'stages[1].pluginId',
    ]);
  });
});

describe('Logic stages', () => {
  it('pass with conditions whose index is in next', () => {
    const logic = {
      type: 'Annotator',
      conditions: [
        { type: 'Annotator', index: 0, value: { emails: ['a@x.test'] } },
        { type: 'Duration', index: 1, value: { duration: 60000, operator: 'gt' } },
        { type: 'AnnotationType', index: 0, value: { tools: [{ filter: ['exists___t1', 'not-exist___t2'] }] } },
      ],
    };
    const r = validateWorkflow(logicFlow(logic));
    expect(r.errors).toEqual([]);
    expect(r.value[1]?.logic?.value).toEqual({});
    expect(validateWorkflow(logicFlow(cond({}))).errors).toEqual([]);
  });

  it('need logic and a next', () => {
    expect(fields(logicFlow(undefined))).toEqual(['stages[1].logic']);
    expect(fields(logicFlow({ conditions: [] }, []))).toEqual(['stages[1].next']);
  });

  it('condition index must be an integer within next', () => {
    expect(fields(logicFlow(cond({ index: 2 })))).toEqual(['stages[1].logic.conditions[0].index']);
    expect(fields(logicFlow(cond({ index: 0.5 })))).toEqual(['stages[1].logic.conditions[0].index']);
    expect(fields(logicFlow(cond({ index: -1 })))).toEqual(['stages[1].logic.conditions[0].index']);
  });

  it('sampleRate within [0, 1], type in the enum', () => {
    expect(fields(logicFlow(cond({ value: { sampleRate: 1.5 } })))).toEqual([
      'stages[1].logic.conditions[0].value.sampleRate',
    ]);
    expect(fields(logicFlow(cond({ value: {} })))).toEqual(['stages[1].logic.conditions[0].value.sampleRate']);
    expect(fields(logicFlow(cond({ type: 'Coin' })))).toEqual(['stages[1].logic.conditions[0].type']);
    expect(fields(logicFlow({ type: 'Coin' }))).toEqual(['stages[1].logic.type']);
  });

  it('Duration needs an operator lt/gt/eq and a numeric duration', () => {
    const duration = (value: S) => logicFlow(cond({ type: 'Duration', value }));
    expect(fields(duration({ duration: 10, operator: 'ge' }))).toEqual([
      'stages[1].logic.conditions[0].value.operator',
    ]);
    expect(fields(duration({ duration: '10', operator: 'lt' }))).toEqual([
      'stages[1].logic.conditions[0].value.duration',
    ]);
  });

  it('AnnotationType filters take the exists___ / not-exist___ form', () => {
    const value = { tools: [{ filter: ['exists___a', 'has___b'] }] };
    expect(fields(logicFlow(cond({ type: 'AnnotationType', value })))).toEqual([
      'stages[1].logic.conditions[0].value.tools[0].filter[1]',
    ]);
  });
});

describe('Webhook stages', () => {
  const withHook = (webhook: unknown) => {
    const stages = fiveStages();
    stages[3] = st('hook', 'Webhook', ['done'], { webhook });
    return fields(stages);
  };

  it('need a webhook with an http(s) url', () => {
    expect(withHook(undefined)).toEqual(['stages[3].webhook']);
    expect(withHook({ url: 'ftp://x.test/a' })).toEqual(['stages[3].webhook.url']);
    expect(withHook({ url: 'not a url' })).toEqual(['stages[3].webhook.url']);
    expect(withHook({ url: 'http://x.test', method: 'PUT', timeout: 1, retryCount: 0 })).toEqual([]);
  });

  it('check method, authType and the credential it needs', () => {
    expect(withHook({ ...hook, method: 'GET' })).toEqual(['stages[3].webhook.method']);
    expect(withHook({ ...hook, authType: 'basic' })).toEqual(['stages[3].webhook.authType']);
    expect(withHook({ ...hook, authType: 'secret' })).toEqual(['stages[3].webhook.secret']);
    expect(withHook({ ...hook, authType: 'secret', secret: 's3cr3t' })).toEqual([]);
    expect(withHook({ ...hook, authType: 'bearer_token', token: '' })).toEqual(['stages[3].webhook.token']);
    expect(withHook({ ...hook, authType: 'bearer_token', token: 'tok' })).toEqual([]);
  });

  it('bound timeout and retryCount', () => {
    for (const timeout of [0, 600001, 1.5])
      expect(withHook({ ...hook, timeout })).toEqual(['stages[3].webhook.timeout']);
    for (const retryCount of [-1, 11, 2.5]) {
      expect(withHook({ ...hook, retryCount })).toEqual(['stages[3].webhook.retryCount']);
    }
  });
});

describe('Consensus stages', () => {
  const broken = (edit: (stages: S[]) => void) => {
    const stages = consensusFlow();
    edit(stages);
    return fields(stages);
  };

  it('need a config with threshold in [0, 1] and sane copies', () => {
    expect(broken((s) => delete s[1]?.consensusConfig)).toEqual(['stages[1].consensusConfig']);
    expect(fields(consensusFlow({}))).toEqual(['stages[1].consensusConfig.threshold']);
    expect(fields(consensusFlow({ threshold: 1.2 }))).toEqual(['stages[1].consensusConfig.threshold']);
    expect(fields(consensusFlow({ threshold: 0.5, minCopies: 1 }))).toEqual(['stages[1].consensusConfig.minCopies']);
    expect(fields(consensusFlow({ threshold: 0.5, minCopies: 4, maxCopies: 3 }))).toEqual([
      'stages[1].consensusConfig.maxCopies',
    ]);
    expect(fields(consensusFlow({ threshold: 0.5, maxCopies: 11 }))).toEqual(['stages[1].consensusConfig.maxCopies']);
    expect(fields(consensusFlow({ threshold: 0.5, adjudicationMethod: 'vote' }))).toEqual([
      'stages[1].consensusConfig.adjudicationMethod',
    ]);
    expect(fields(consensusFlow({ threshold: 0.5, version: 3 }))).toEqual(['stages[1].consensusConfig.version']);
    const big = validateWorkflow(consensusFlow({ threshold: 0.5, minCopies: 7 }));
    expect(big.errors).toEqual([]);
    expect(big.value[1]?.consensusConfig?.maxCopies).toBe(7);
  });

  it('need 2 to 10 sub-stages', () => {
    expect(broken((s) => s.splice(3, 1))).toEqual(['stages[1]']);
    const eleven = broken((s) => {
      for (let k = 3; k <= 11; k++) s.push(st(`c${k}`, 'Label', ['C'], { consensusId: 'C' }));
    });
    expect(eleven).toEqual(['stages[1]']);
  });

  it('sub-stages are Label or Plugin and lead back to the container only', () => {
    expect(broken((s) => (s[2] = st('c1', 'Hold', ['C'], { consensusId: 'C' })))).toEqual(['stages[2].type']);
    expect(broken((s) => (s[2] = st('c1', 'Label', ['done'], { consensusId: 'C' })))).toEqual(['stages[2].next']);
    expect(broken((s) => (s[2] = st('c1', 'Label', ['C', 'done'], { consensusId: 'C' })))).toEqual(['stages[2].next']);
  });

  it('the container has 2 next entries that are not its own sub-stages', () => {
    expect(broken((s) => (s[1] = { ...s[1], next: ['done'] }))).toEqual(['stages[1].next']);
    expect(broken((s) => (s[1] = { ...s[1], next: ['c1', 'arch'] }))).toEqual(['stages[1].next[0]']);
  });

  it('consensusId points to an existing Consensus stage', () => {
    expect(broken((s) => s.push(st('x', 'Label', ['done'], { consensusId: 'done' })))).toEqual([
      'stages[6].consensusId',
    ]);
    expect(broken((s) => s.push(st('y', 'Label', ['done'], { consensusId: 'ghost' })))).toEqual([
      'stages[6].consensusId',
    ]);
  });

  it('nothing but the container enters a sub-stage', () => {
    expect(broken((s) => (s[0] = st('s', 'Start', ['c1'])))).toEqual(['stages[0].next[0]']);
  });
});

describe('helpers', () => {
  it('find stages', () => {
    const { value } = validateWorkflow(consensusFlow());
    expect(stageById(value, 'c2')?.type).toBe('Plugin');
    expect(stageById(value, 'none')).toBeUndefined();
    expect(startStage(value)?.id).toBe('s');
    expect(consensusSubStages(value, 'C').map((s) => s.id)).toEqual(['c1', 'c2']);
    expect(isTerminalStage({ type: 'Archive' })).toBe(true);
    expect(isTerminalStage({ type: 'Hold' })).toBe(false);
  });
});
