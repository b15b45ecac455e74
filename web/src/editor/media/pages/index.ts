import type { Vec } from '../../core/answer';
import type { Surface } from '../../core/surface';
import { fitViewport, panBy, toImage, toScreen, zoomAt, type Viewport } from '../image/viewport';
import { PagesSurfaceEditor } from './PagesEditor';

/**
 * Assets of pages (several images imported as one asset's `dataset`, a multi-page TIFF): medium
 * coordinates are a page's pixels, as an image's; the page is each object's `where.page`
 * (0-based), and an object lives on its page only. The view is the image surface's.
 */
const pages: Surface<Viewport, Vec, Vec> = {
  kind: 'pages',
  space: 'plane',
  toScreen,
  toMedium: toImage,
  examples() {
    const fitted = fitViewport(2480, 3508, 1000, 700);
    const points: Vec[] = [
      [0, 0],
      [2480, 3508],
      [1240.5, 99.25],
    ];
    return [fitted, zoomAt(fitted, [300, 200], 3), panBy(fitted, -40, 250)].map((view) => ({ view, points }));
  },
  Editor: PagesSurfaceEditor,
};

export default pages;
