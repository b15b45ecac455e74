/**
 * The keys each medium's editor answers, as the help dialog (`?`) lists them. useEditorKeys binds
 * them; a key added there is added here, beside it, with the medium that answers it.
 */
export interface KeyRow {
  keys: string;
  does: string;
}

/** Undo and redo, the same in every medium. */
const UNDO_KEYS: readonly KeyRow[] = [
  { keys: 'Ctrl+Z', does: 'undo' },
  { keys: 'Ctrl+Shift+Z, Ctrl+Y', does: 'redo' },
];

export const IMAGE_KEYS: readonly KeyRow[] = [
  { keys: 'V', does: 'Select' },
  { keys: 'Escape', does: 'cancel the shape being drawn; otherwise leave the tool and clear the selection' },
  { keys: 'Enter', does: 'finish the polygon or polyline being drawn' },
  { keys: 'Backspace', does: 'remove the last vertex while drawing; otherwise delete the selected object' },
  { keys: 'Delete', does: 'delete the selected object' },
  ...UNDO_KEYS,
  { keys: '+ (or =), -', does: 'zoom in, zoom out' },
  { keys: '0 or F', does: 'fit the image in the window' },
  { keys: 'arrow keys', does: 'pan' },
  { keys: 'mouse wheel, Shift + wheel', does: 'zoom about the pointer, pan sideways' },
  { keys: '[, ]', does: 'brush: smaller, larger' },
  { keys: 'Shift+E', does: 'brush: the eraser on or off (the right mouse button also erases)' },
];

export const VIDEO_KEYS: readonly KeyRow[] = [
  { keys: 'Space', does: 'play or pause' },
  { keys: 'ArrowRight or ., ArrowLeft or ,', does: 'one frame forward, back' },
  { keys: 'Shift+ArrowRight, Shift+ArrowLeft', does: 'ten frames forward, back' },
  { keys: 'Alt+ArrowRight, Alt+ArrowLeft', does: "the selected object's next, previous keyframe" },
  { keys: 'Enter in Frame', does: 'go to the frame typed (counted from 1)' },
];

export const PAGE_KEYS: readonly KeyRow[] = [
  { keys: 'PageDown, PageUp', does: 'next page, previous page' },
  { keys: 'Home, End', does: 'first page, last page' },
  { keys: 'Enter in Page', does: 'go to the page typed (counted from 1)' },
];

export const VOLUME_KEYS: readonly KeyRow[] = [
  { keys: 'wheel, ArrowUp, ArrowDown', does: 'next slice, previous slice' },
  { keys: 'Home, End', does: 'first slice, last slice' },
  { keys: 'drag with the right button', does: 'window: left-right its width, up-down its centre' },
  { keys: 'Ctrl + wheel', does: 'zoom' },
  { keys: 'Enter in Slice', does: 'go to the slice typed (counted from 1)' },
];

export const TEXT_KEYS: readonly KeyRow[] = [
  { keys: "an entity's key", does: 'tag the selected text as that entity' },
  { keys: 'Escape', does: 'clear the selection' },
  { keys: 'Delete, Backspace', does: 'delete the selected entity' },
  ...UNDO_KEYS,
];

export const PDF_KEYS: readonly KeyRow[] = [
  { keys: "a tool's key", does: 'mark the selected words with that tool (with none selected: the tool Alt-drag uses)' },
  { keys: 'Alt+drag', does: 'mark an area of a page' },
  { keys: 'Escape', does: 'clear the selection' },
  { keys: 'Delete, Backspace', does: 'delete the selected mark' },
  ...UNDO_KEYS,
];

/** Keys of the work page around every editor. */
export const WORK_KEYS: readonly KeyRow[] = [
  { keys: '?', does: 'show or hide this list' },
  { keys: 'Alt+S', does: 'skip the task (Label tasks, when the project allows skipping)' },
];

export const POINT_LABEL_KEYS: readonly KeyRow[] = [
  { keys: 'V or Escape', does: 'Pan: a drag in the top view moves it' },
  { keys: 'E', does: 'Unlabel: a lasso takes the class off the points inside it' },
  { keys: 'drag (top view) with a class chosen', does: 'lasso: label the points inside it, between the heights set' },
  ...UNDO_KEYS,
  { keys: 'ArrowRight or ., ArrowLeft or ,', does: 'next frame, previous frame (Shift: ten)' },
  { keys: 'drag (3D view), Shift+drag, wheel', does: 'orbit, pan, zoom' },
  { keys: 'wheel (top view)', does: 'zoom about the pointer' },
];

export const POINTCLOUD_KEYS: readonly KeyRow[] = [
  { keys: 'V or Escape', does: 'Select (and cancel the line being drawn)' },
  { keys: 'click on the ground (top view)', does: 'cuboid tool: place a cuboid fitted to the points there' },
  { keys: 'drag a selected cuboid, its round handle', does: 'move it, turn it' },
  { keys: '[, ] (Shift: 10 degrees)', does: 'turn the selected cuboid by one degree' },
  { keys: 'Enter or double click', does: 'finish the polygon or polyline being drawn' },
  { keys: 'Delete, Backspace', does: 'delete the selected object' },
  ...UNDO_KEYS,
  { keys: 'ArrowRight or ., ArrowLeft or ,', does: 'next frame, previous frame (Shift: ten)' },
  { keys: 'Alt+ArrowRight, Alt+ArrowLeft', does: "the selected object's next, previous keyframe" },
  { keys: 'drag (3D view), Shift+drag, wheel', does: 'orbit, pan, zoom' },
  { keys: 'drag (top view), wheel', does: 'pan, zoom about the pointer' },
];
