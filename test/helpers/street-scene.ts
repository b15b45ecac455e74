/*
 * The fixtures several test files share: the street-scene ontology (cars as bounding boxes, the
 * weather as sun or rain) and the two-labeller consensus workflow. Where files need more or
 * less of them, that is a parameter here, so each file still says what it relies on.
 */

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
