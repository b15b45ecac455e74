/*
 * The fixtures several test files share: the street-scene ontology (cars as bounding boxes, the
 * weather as sun or rain) and the two-labeller consensus workflow. Where files need more or
 * less of them, that is a parameter here, so each file still says what it relies on.
 */

import { expect } from 'vitest';
import type { TestApp } from './app.js';

export interface StreetOntologyOptions {
  /** Adds a `person` point tool after the car. */
  person?: boolean;
  /** Adds a `colors` checkbox (red, blue, green) after the weather. */
  colors?: boolean;
  /** The weather must be answered. */
  weatherRequired?: boolean;
  /** The weather has the one option `sun`. */
  sunOnly?: boolean;
}

export function streetOntology(opts: StreetOntologyOptions = {}) {
  const weatherOptions = [{ schemaId: 'sun', value: 'Sunny' }];
  if (!opts.sunOnly) weatherOptions.push({ schemaId: 'rain', value: 'Rainy' });
  return {
    tools: [
      { schemaId: 'car', title: 'Car', tool: 'bounding-box', color: '#ff0000' },
      ...(opts.person ? [{ schemaId: 'person', title: 'Person', tool: 'point', color: '#00ff00' }] : []),
    ],
    classifications: [
      {
        schemaId: 'weather',
        title: 'Weather',
        tool: 'radio',
        ...(opts.weatherRequired ? { required: true } : {}),
        options: weatherOptions,
      },
      ...(opts.colors
        ? [
            {
              schemaId: 'colors',
              title: 'Colors',
              tool: 'checkbox',
              options: ['red', 'blue', 'green'].map((c) => ({ schemaId: c, value: c })),
            },
          ]
        : []),
    ],
  };
}

/**
 * Start -> Consensus `C` with two labelling copies `c1` and `c2` -> Done when they agree, else
 * Disputed (a Hold) -> Done. `dynamicOn` names the copy stage marked consensusDynamic (the other
 * is then marked not dynamic); without it neither carries the flag.
 */
export function consensusWorkflow(config: Record<string, unknown>, dynamicOn?: 'c1' | 'c2') {
  const dynamic = (id: string) => (dynamicOn === undefined ? {} : { consensusDynamic: dynamicOn === id });
  return [
    { id: 'Start', type: 'Start', next: ['C'] },
    { id: 'C', type: 'Consensus', next: ['Done', 'Disputed'], consensusConfig: config },
    { id: 'c1', type: 'Label', next: ['C'], consensusId: 'C', ...dynamic('c1') },
    { id: 'c2', type: 'Label', next: ['C'], consensusId: 'C', ...dynamic('c2') },
    { id: 'Disputed', type: 'Hold', next: ['Done'] },
    { id: 'Done', type: 'Complete' },
  ];
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The id of a consensus parent's copy waiting in sub-stage `stage`. */
export async function consensusCopy(t: TestApp, projectId: string, parent: string, stage: string): Promise<string> {
  const res = await t.call('GET', `/v2/project/${projectId}/tasks?limit=100&stage=${stage}`);
  return (res.json().data.tasks as { _id: string; parentTask: string }[]).find((c) => c.parentTask === parent)
    ?._id as string;
}

/**
 * Submits a round of consensusWorkflow: `first` as the copy in `c1`, `second` in `c2`, each the
 * answer's tools (a list) or the answer's other fields; answers the parent task as it then is.
 */
export async function submitConsensusRound(
  t: TestApp,
  projectId: string,
  parent: string,
  first: unknown[] | Json,
  second: unknown[] | Json,
): Promise<Json> {
  for (const [stage, sent] of [
    ['c1', first],
    ['c2', second],
  ] as const) {
    const copy = await consensusCopy(t, projectId, parent, stage);
    const answer = { tools: [], classifications: [], relations: [], ...(Array.isArray(sent) ? { tools: sent } : sent) };
    const res = await t.call('POST', `/v2/annotate/${copy}?nextStage=true`, { body: { answer } });
    expect(res.statusCode, res.body).toBe(200);
  }
  return (await t.call('GET', `/v2/task/${parent}`)).json().data.task;
}
