import { Spool } from '../../../adapters/storage/listing-spool.js';
import type { DatasetSource } from './dataset-source.js';
import { type DatasetObject, type DatasetTask, framesOf } from './dataset-task.js';
import type { ZipEntry } from './dataset-zip.js';
import { cvatElements, cvatMask } from './cvat-shapes.js';
import type { DatasetOntology } from '../../files/layers/ontology-classes.js';
import { answerText } from '../../files/layers/ontology-classes.js';
import { xml } from './xml-text.js';

/*
 * CVAT for images 1.1 (`annotations.xml`: every still image with its shapes) and CVAT for video
 * 1.1 for each video asset (`videos/<name>.xml`: one track per object, a shape per keyframe,
 * `outside="1"` where the object's track stops). Labels carry the ontology's colours and their
 * questions as attributes.
 */

const CVAT_KINDS: Record<string, string> = {
  'bounding-box': 'rectangle',
  'rotated-bounding-box': 'rectangle',
  polygon: 'polygon',
  polyline: 'polyline',
  point: 'points',
  segmentation: 'polygon',
  brush: 'mask',
};

export const CVAT_ABOUT = [
  'CVAT 1.1 XML. `annotations.xml` (CVAT for images) holds every still image; each video is `videos/<video>.xml` (CVAT for video).',
  '',
  '- Boxes: `box` (xtl, ytl, xbr, ybr); rotated boxes add `rotation` (degrees, about the centre).',
  '- Polygons, polylines, points: `polygon`, `polyline`, `points`.',
  '- Segmentation zones: a `polygon` per zone; zones with holes and brush layers: `mask` (CVAT RLE in the mask box).',
  '- Classification answers: `attribute` elements of each shape; image-level answers as `tag` elements.',
  '- Video: a `track` per object, a shape per keyframe (`keyframe="1"`), `outside="1"` from the frame the object stops.',
  '- Not held by CVAT here: NER spans, PDF areas, cuboids, angles, medical volumes, relations (counted below).',
];

function metaXml(ontology: DatasetOntology, name: string, size: number): string {
  const questions = (attrs: { title: string; options?: { value: string }[] | undefined }[]) =>
    attrs
      .map(
        (q) =>
          `<attribute><name>${xml(q.title)}</name><mutable>False</mutable><input_type>${q.options?.length ? 'select' : 'text'}</input_type>` +
          `<default_value></default_value><values>${xml((q.options ?? []).map((o) => o.value).join('\n'))}</values></attribute>`,
      )
      .join('');
  const labels = ontology.classes
    .filter((c) => CVAT_KINDS[c.tool])
    .map(
      (c) =>
        `<label><name>${xml(c.name)}</name><color>${xml(c.color ?? '#000000')}</color><type>${CVAT_KINDS[c.tool]}</type><attributes></attributes></label>`,
    );
  const tags = ontology.topQuestions.map(
    (q) =>
      `<label><name>${xml(q.title)}</name><color>${xml(q.color ?? '#000000')}</color><type>tag</type><attributes>${questions([q])}</attributes></label>`,
  );
  return `  <meta><task><name>${xml(name)}</name><size>${size}</size><mode>annotation</mode><labels>${[...labels, ...tags].join('')}</labels></task></meta>\n`;
}

function tagsXml(task: DatasetTask): string {
  return Object.entries(task.attributes)
    .map(
      ([k, v]) =>
        `<tag label="${xml(k)}" source="manual"><attribute name="${xml(k)}">${xml(answerText(v))}</attribute></tag>`,
    )
    .join('');
}

/** One still image's element, with its shapes. */
async function imageXml(src: DatasetSource, task: DatasetTask, id: number): Promise<string> {
  const size = { w: task.width, h: task.height };
  const parts: string[] = [];
  for (const o of task.objects) {
    const elements = cvatElements(o, size);
    if (elements) {
      parts.push(...elements);
      src.report.keep(`${o.cls.tool} shapes`);
    } else src.report.drop(`${o.cls.tool} objects (CVAT cannot hold them here)`);
  }
  const layer = await src.brush(task);
  layer?.classes.forEach((cls, k) => {
    const mask = cvatMask(layer.raster, k + 1, cls.name, '');
    if (mask) parts.push(mask);
  });
  src.report.images++;
  const width = task.width ?? layer?.raster.width ?? 0;
  const height = task.height ?? layer?.raster.height ?? 0;
  return `  <image id="${id}" name="${xml(task.fileName)}" width="${width}" height="${height}">${tagsXml(task)}${parts.join('')}</image>\n`;
}

function videoXml(src: DatasetSource, task: DatasetTask): string {
  const tracks = new Map<string, DatasetObject[]>();
  for (const o of task.objects) {
    const list = tracks.get(o.objectId);
    if (list) list.push(o);
    else tracks.set(o.objectId, [o]);
  }
  const out: string[] = [];
  let id = 0;
  for (const entries of tracks.values()) {
    const first = entries[0] as DatasetObject;
    const shapes: string[] = [];
    for (const e of [...entries].sort((a, b) => (a.page ?? 0) - (b.page ?? 0))) {
      const extra = ` frame="${e.page ?? 0}" outside="${e.stopped ? 1 : 0}" keyframe="1"`;
      // A stop entry may carry no geometry: the object's last shape marks where it was.
      const shape = cvatElements(
        e.stopped && !e.geometry ? { ...e, geometry: first.geometry } : e,
        { w: task.width, h: task.height },
        extra,
      );
      if (shape?.length === 1) shapes.push(shape[0] as string);
      else src.report.drop(`${e.cls.tool} track entries (CVAT tracks hold one shape per frame)`);
    }
    if (!shapes.length) continue;
    out.push(`  <track id="${id++}" label="${xml(first.cls.name)}" source="manual">${shapes.join('')}</track>\n`);
    src.report.keep('video tracks');
  }
  src.report.drop('brush layers of video frames (CVAT video tracks hold no masks here)', task.brushFrames.size);
  let frames = 0;
  for (const _frame of framesOf(task)) frames++;
  src.report.images += frames;
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n<annotations>\n  <version>1.1</version>\n` +
    `${metaXml(src.ontology, task.externalId, task.frameTotal ?? frames)}${out.join('')}</annotations>\n`
  );
}

/**
 * Videos are written as they come, each an entry of its own; still images gather in a spool
 * (a temporary file past 1 MiB) that becomes `annotations.xml` at the end.
 */
export async function* cvatEntries(src: DatasetSource): AsyncGenerator<ZipEntry> {
  const images = new Spool(undefined, 'annotary-cvat');
  try {
    let id = 0;
    for await (const task of src.tasks()) {
      if (task.framed) yield { name: `videos/${task.stem}.xml`, data: videoXml(src, task) };
      else await images.write(await imageXml(src, task, id++));
    }
    const head = `<?xml version="1.0" encoding="utf-8"?>\n<annotations>\n  <version>1.1</version>\n${metaXml(src.ontology, 'Annotary export', id)}`;
    yield {
      name: 'annotations.xml',
      data: (async function* () {
        yield head;
        yield* images.chunks();
        yield '</annotations>\n';
      })(),
    };
  } finally {
    await images.discard();
  }
  yield { name: 'README.md', data: src.report.readme('CVAT 1.1 export', CVAT_ABOUT) };
}
