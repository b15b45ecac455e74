import type { Surface } from '../../core/surface';
import { toCodePoints, toUtf16 } from './spans';
import { TextSurfaceEditor } from './TextEditor';

/**
 * Texts: medium coordinates are code-point offsets (as the API's answers and Python count them);
 * the screen's are the UTF-16 offsets of the rendered text, which the browser's selections and
 * ranges count. The view is the text itself: it has no pan or zoom of its own.
 */
const text: Surface<string, number, number> = {
  kind: 'text',
  space: 'text',
  toScreen: (view, at) => toUtf16(view, at),
  toMedium: (view, at) => toCodePoints(view, at),
  examples() {
    const plain = 'Paris and Rome';
    const astral = 'I 😀 Paris, 𝒜 and Zürich 👩‍👩‍👧 end';
    return [
      { view: plain, points: [0, 5, plain.length] },
      { view: astral, points: [0, 2, 3, 4, 12, [...astral].length] },
    ];
  },
  Editor: TextSurfaceEditor,
};

export default text;
