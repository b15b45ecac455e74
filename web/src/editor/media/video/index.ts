import type { Vec } from '../../core/answer';
import type { Surface } from '../../core/surface';
import { fitViewport, panBy, toImage, toScreen, zoomAt, type Viewport } from '../image/viewport';
import { VideoSurfaceEditor } from './VideoEditor';

/**
 * Videos: medium coordinates are a frame's pixels, as an image's; the frame is each object's
 * `where.page` (0-based). The view is the image surface's.
 */
const video: Surface<Viewport, Vec, Vec> = {
  kind: 'video',
  space: 'plane',
  toScreen,
  toMedium: toImage,
  examples() {
    const fitted = fitViewport(1920, 1080, 1000, 700);
    const points: Vec[] = [
      [0, 0],
      [1920, 1080],
      [960.5, 17.25],
    ];
    return [fitted, zoomAt(fitted, [200, 100], 4), panBy(fitted, 300, -20)].map((view) => ({ view, points }));
  },
  Editor: VideoSurfaceEditor,
};

export default video;
