import type { Vec } from '../../core/answer';
import type { Surface } from '../../core/surface';
import { ImageSurfaceEditor } from './ImageSurfaceEditor';
import { fitViewport, panBy, toImage, toScreen, zoomAt, type Viewport } from './viewport';

/**
 * Images: medium coordinates are image pixels (x right, y down from the top-left corner); the
 * view is a scale and an offset, screen = image * scale + offset.
 */
const image: Surface<Viewport, Vec, Vec> = {
  kind: 'image',
  space: 'plane',
  toScreen,
  toMedium: toImage,
  examples() {
    const fitted = fitViewport(4000, 3000, 1000, 800);
    const zoomed = zoomAt(fitted, [300, 200], 6.5);
    const points: Vec[] = [
      [0, 0],
      [4000, 3000],
      [123.45, 2999.99],
      [1999.5, 0.25],
    ];
    return [fitted, zoomed, panBy(zoomed, -850, 420), zoomAt(fitted, [10, 10], 0.05)].map((view) => ({
      view,
      points,
    }));
  },
  Editor: ImageSurfaceEditor,
};

export default image;
