import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import {
  AREAS,
  type DatasetProject,
  datasetProject,
  exportZip,
  H,
  pythonCheck,
  W,
} from '../helpers/dataset-fixture.js';
import { listen } from '../helpers/files.js';
import { ENGINES } from '../helpers/stores.js';

/*
 * The dataset formats of the export (coco, yolo, voc, masks, cvat) on a project holding every
 * tool kind, each zip read back by an independent reader (Python: json, lxml without entities,
 * PIL, OpenCV rasterising the polygons, numpy decoding the RLE).
 */

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe.each(ENGINES)('dataset exports on %s', (engine) => {
  let t: TestApp;
  let base: string;
  let project: DatasetProject;
  let dir: string;
  const exports = new Map<string, Map<string, Buffer>>();
  let found: Record<string, unknown> = {};
  const check = (format: string) => ({
    readme: exports.get(format)?.get('README.md')?.toString('utf8') ?? '',
    found: found[format] as Json,
  });

  beforeAll(async () => {
    t = await makeTestApp(engine);
    const onServer = await listen(t.app);
    base = onServer('http://annotary.test');
    project = await datasetProject(t, onServer);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-datasets-'));
    for (const format of ['coco', 'yolo', 'voc', 'masks', 'cvat']) {
      exports.set(format, (await exportZip(t, base, project.pid, format)).entries);
    }
    found = await pythonCheck(exports, dir);
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  it('coco: categories, images with sizes, boxes, polygons, RLE for holes and brush, keypoints, attributes, frames', async () => {
    const { found, readme } = check('coco');
    expect(found.categories.map((c: Json) => [c.id, c.name])).toEqual([
      [1, 'Car'],
      [2, 'Truck'],
      [3, 'Road'],
      [5, 'Sign'],
      [6, 'Field'],
      [7, 'Sky'],
    ]);
    const images = found.images as Json[];
    expect(images.map((i) => [i.file_name, i.width, i.height, i.frame_index])).toEqual([
      ['street.jpg', W, H, undefined],
      // The track expanded: frames 0 to 6 (it stops on 7), the box moved in between.
      ...[0, 1, 2, 3, 4, 5, 6].map((f) => [`drive/frame_00000${f}.jpg`, W, H, f]),
      ['unsized.jpg', null, null, undefined],
    ]);
    expect(images[0]?.attributes).toEqual({ Weather: 'Sunny' });
    const byObject = new Map((found.annotations as Json[]).map((a) => [a.object_id ?? `class-${a.category_id}`, a]));
    expect(byObject.get('car-1')).toMatchObject({
      bbox: [4.5, 6, 20, 10],
      area: AREAS.car,
      attributes: { Colour: 'Red' },
    });
    // Rasterised independently, each area is within the outline's pixels of the stored area.
    const truck = byObject.get('truck-1') as Json;
    expect(truck.attributes.rotation).toBe(30);
    expect(Math.abs(truck.raster_area - AREAS.truck)).toBeLessThanOrEqual(4);
    expect(byObject.get('road-1')).toMatchObject({ area: AREAS.road, raster_area: AREAS.road });
    expect(byObject.get('field-1')).toMatchObject({ area: AREAS.field, raster_area: AREAS.field, iscrowd: 0 });
    expect(byObject.get('field-1')?.raster_bbox).toEqual([34, 24, 28, 22]);
    expect(byObject.get('class-7')).toMatchObject({
      iscrowd: 1,
      area: AREAS.sky,
      raster_area: AREAS.sky,
      bbox: [0, 0, W, 4],
    });
    expect(byObject.get('sign-1')?.keypoints).toEqual([50.5, 5.25, 2]);
    expect(readme).toMatch(/- 1 ner objects \(COCO cannot hold them\)/);
    expect(readme).toMatch(/- 1 polyline objects \(COCO cannot hold them\)/);
  });

  it('yolo: data.yaml names, normalised segment lines, frames as images, unknown sizes counted', async () => {
    const { found, readme } = check('yolo');
    expect(found.data).toMatchObject({
      task: 'segment',
      nc: 5,
      names: { 0: 'Car', 1: 'Truck', 2: 'Road', 3: 'Field', 4: 'Sky' },
    });
    const street = found.labels['street.txt'] as number[][];
    // The objects, then the brush layer's sky band traced: its four corners.
    expect(street.map((l) => l[0])).toEqual([0, 1, 2, 3, 4]);
    expect(street[4]?.slice(1).map((v) => Math.round(v * 1000) / 1000)).toEqual([0, 0, 1, 0, 1, 0.083, 0, 0.083]);
    expect(street[0]?.slice(1, 3)).toEqual(
      [4.5 / W, Math.round((6 / H) * 1e6) / 1e6].map((v) => Math.round(v * 1e6) / 1e6),
    );
    expect(found.labels['drive_frame_000005.txt']).toHaveLength(1);
    // Frame 3 is between the keyframes: its box moved to x 4 (from 1 to 6), its first corner there.
    expect(found.labels['drive_frame_000003.txt']?.[0]?.[1]).toBeCloseTo(4 / W, 5);
    expect(found.labels['drive_frame_000007.txt']).toBeUndefined();
    expect(found.labels['unsized.txt']).toEqual([]);
    expect(found.images).toContain('images/drive_frame_000000.jpg');
    expect(readme).toMatch(/- 1 objects on images of unknown size/);
    expect(readme).toMatch(/- brush labels \(one per connected area of a class\): 1/);
    expect(readme).not.toMatch(/holes of segmentation zones/);
  });

  it('voc: strict XML with boxes and attributes, palette segmentation maps, labelmap', async () => {
    const { found } = check('voc');
    const street = found.annotations.street as Json;
    expect(street).toMatchObject({ size: [W, H], segmented: '1' });
    expect(street.objects.map((o: Json) => o.name)).toEqual(['Car', 'Truck', 'Road', 'Field']);
    expect(street.objects[0]).toEqual({ name: 'Car', attributes: { Colour: 'Red' }, box: [4.5, 6, 24.5, 16] });
    expect(street.objects[1].attributes).toEqual({ rotation: '30', box_width: '16', box_height: '8' });
    expect(found.labelmap.slice(1, 7)).toEqual([
      'background:0,0,0::',
      'Car:255,0,0::',
      'Truck:0,0,255::',
      'Road:128,128,128::',
      'Field:0,255,255::',
      'Sky:0,255,0::',
    ]);
    // Classes 3 (Road), 4 (Field, holes empty) and 5 (Sky, the brush) in the class map.
    expect(found.class_pixels['street.png']).toEqual({
      0: W * H - AREAS.road - AREAS.field - AREAS.sky,
      3: AREAS.road,
      4: AREAS.field,
      5: AREAS.sky,
    });
    expect(Object.keys(found.object_pixels['street.png'])).toEqual(['0', '1', '2', '3']);
  });

  it('masks: class and 16-bit instance maps the size of the image, instances named', async () => {
    const { found } = check('masks');
    const classes = found.class['street.png'] as Json;
    expect(classes).toMatchObject({ 1: AREAS.car, 3: AREAS.road, 4: AREAS.field, 5: AREAS.sky });
    expect(Math.abs(classes[2] - AREAS.truck)).toBeLessThanOrEqual(4);
    expect(Object.values(found.instance['street.png'] as Json).reduce((a: number, b) => a + (b as number), 0)).toBe(
      W * H,
    );
    expect(found.instances.filter((i: Json) => i.image === 'street.png').map((i: Json) => i.objectId)).toEqual([
      null,
      'car-1',
      'truck-1',
      'road-1',
      'field-1',
    ]);
  });

  it('cvat: images with every shape, masks for holes and brush, a video track with keyframes and outside', async () => {
    const { found } = check('cvat');
    const street = (found['annotations.xml'].images as Json[]).find((i) => i.name === 'street.jpg') as Json;
    expect(street.shapes.map((s: Json) => `${s.tag}:${s.label}`)).toEqual([
      'tag:Weather',
      'box:Car',
      'box:Truck',
      'polygon:Road',
      'polyline:Lane',
      'points:Sign',
      'mask:Field',
      'mask:Sky',
    ]);
    expect(street.shapes[2]).toMatchObject({ xtl: '30', ytl: '8', xbr: '46', ybr: '16', rotation: '30' });
    expect(street.shapes[6].mask_area).toBe(AREAS.field);
    expect(street.shapes[7].mask_area).toBe(AREAS.sky);
    const track = found['videos/drive.xml'].tracks[0] as Json;
    expect(track.shapes.map((s: Json) => [s.frame, s.outside, s.keyframe, s.xtl])).toEqual([
      ['0', '0', '1', '1'],
      ['5', '0', '1', '6'],
      ['7', '1', '1', '8'],
    ]);
  });

  it('refuses a dataset format for issue exports, naming the field', async () => {
    const res = await t.call('GET', `/v2/export?project=${project.pid}&type=issue&format=coco`);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].field).toBe('format');
  });
});
