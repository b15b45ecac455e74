import type { Surface } from '../../core/surface';
import type { PagePoint } from '../../core/tool';
import { PdfSurfaceEditor } from './PdfEditor';

/**
 * PDF documents: medium coordinates are a page (0-based) and a point of it in the page's own
 * units (PDF points at 100 %, y down from the page's top), as the `pdf` tool's answers keep them;
 * the screen's are the same page and CSS pixels from its corner. The view is the zoom.
 */
const pdf: Surface<{ scale: number }, PagePoint, PagePoint> = {
  kind: 'pdf',
  space: 'document',
  toScreen: ({ scale }, [page, x, y]) => [page, x * scale, y * scale],
  toMedium: ({ scale }, [page, x, y]) => [page, x / scale, y / scale],
  examples: () =>
    [0.5, 1, 1.37].map((scale) => ({
      view: { scale },
      points: [
        [0, 0, 0],
        [0, 612, 792],
        [2, 100.25, 400.5],
      ] as PagePoint[],
    })),
  Editor: PdfSurfaceEditor,
};

export default pdf;
