/**
 * Realistic project documents, shared by the benchmarks so their figures describe the same kind
 * of project: a street-scene ontology (10 tools, 5 classifications with options, some nested)
 * and a five-stage workflow (Start, Label, Review, Webhook, Complete).
 */

const TOOL_KINDS = [
  ['car', 'Car', 'bounding-box'],
  ['truck', 'Truck', 'bounding-box'],
  ['bus', 'Bus', 'rotated-bounding-box'],
  ['pedestrian', 'Pedestrian', 'bounding-box'],
  ['cyclist', 'Cyclist', 'bounding-box'],
  ['road', 'Road', 'polygon'],
  ['sidewalk', 'Sidewalk', 'polygon'],
  ['lane-marking', 'Lane marking', 'polyline'],
  ['traffic-light', 'Traffic light', 'point'],
  ['sky', 'Sky', 'segmentation'],
] as const;

const COLORS = ['#E6194B', '#3CB44B', '#FFE119', '#4363D8', '#F58231', '#911EB4', '#46F0F0', '#F032E6', '#BCF60C'];

function options(prefix: string, values: string[]) {
  return values.map((value, i) => ({ schemaId: `${prefix}-${i}`, value }));
}

/** 10 tools (two with a nested radio question) and 5 classifications, 26 options in all. */
export function streetSceneOntology() {
  return {
    tools: TOOL_KINDS.map(([schemaId, title, tool], i) => ({
      schemaId,
      title,
      tool,
      color: COLORS[i % COLORS.length],
      shortcutKey: String(i),
      ...(i < 2
        ? {
            classifications: [
              {
                schemaId: `${schemaId}-occluded`,
                title: 'Occlusion',
                tool: 'radio',
                options: options(`${schemaId}-occ`, ['None', 'Partly', 'Mostly']),
              },
            ],
          }
        : {}),
    })),
    classifications: [
      {
        schemaId: 'weather',
        title: 'Weather',
        tool: 'radio',
        required: true,
        options: options('weather', ['Sunny', 'Cloudy', 'Rainy', 'Snowy', 'Foggy']),
      },
      {
        schemaId: 'time-of-day',
        title: 'Time of day',
        tool: 'single-dropdown',
        options: options('tod', ['Dawn', 'Day', 'Dusk', 'Night']),
      },
      {
        schemaId: 'scene',
        title: 'Scene',
        tool: 'checkbox',
        options: options('scene', ['Highway', 'City street', 'Residential', 'Parking lot', 'Tunnel']),
      },
      {
        schemaId: 'quality',
        title: 'Image quality',
        tool: 'radio',
        options: options('quality', ['Good', 'Blurry', 'Overexposed', 'Underexposed']),
      },
      { schemaId: 'notes', title: 'Notes', tool: 'text' },
    ],
  };
}

/** Start -> Label -> Review (accept: Notify, reject: Label) -> Notify (webhook) -> Complete. */
export function fiveStageWorkflow() {
  return [
    { id: 'Start', type: 'Start', next: ['Label'], position: { x: 0, y: 0 } },
    { id: 'Label', name: 'Label', type: 'Label', next: ['Review'], position: { x: 200, y: 0 } },
    { id: 'Review', name: 'Review', type: 'Review', next: ['Notify', 'Label'], position: { x: 400, y: 0 } },
    {
      id: 'Notify',
      name: 'Notify',
      type: 'Webhook',
      next: ['Complete'],
      position: { x: 600, y: 0 },
      webhook: { url: 'https://hooks.example.com/annotary', authType: 'secret', secret: 'bench-secret' },
    },
    { id: 'Complete', type: 'Complete', next: [], position: { x: 800, y: 0 } },
  ];
}
