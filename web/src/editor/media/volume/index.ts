import type { Vec } from '../../core/answer';
import type { Surface } from '../../core/surface';
import { fitViewport, panBy, toImage, toScreen, zoomAt, type Viewport } from '../image/viewport';
import { VolumeSurfaceEditor } from './VolumeEditor';

/**
 * Volumes (a DICOM file or series, an NRRD): medium coordinates are an axial slice's voxels, as
 * an image's pixels; the slice is each object's `where.page` (0-based), and an object lives on
 * its slice only. The view is the image surface's.
 */
const volume: Surface<Viewport, Vec, Vec> = {
  kind: 'volume',
  space: 'plane',
  toScreen,
  toMedium: toImage,
  examples() {
    const fitted = fitViewport(512, 512, 1000, 700);
    const points: Vec[] = [
      [0, 0],
      [512, 512],
      [255.5, 99.25],
    ];
    return [fitted, zoomAt(fitted, [300, 200], 3), panBy(fitted, -40, 250)].map((view) => ({ view, points }));
  },
  Editor: VolumeSurfaceEditor,
};

export default volume;
