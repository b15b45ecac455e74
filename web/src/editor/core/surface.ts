import type { ComponentType, ReactNode } from 'react';
import type { EditorAnswer, Vec } from './answer';
import type { ApiAnswer } from './codec';
import type { Ontology } from './ontology';
import type { ToolSpace } from './tool';
import type { Problem } from './validate';

/** A review issue's pin on the medium, in its coordinates. */
export interface Pin {
  id: string;
  position: Vec;
  label: string;
  resolved?: boolean;
  /** The page (frame, slice) it is on, 0-based, for media of many parts; on every part when absent. */
  page?: number;
}

/** The pins to draw on one page (frame) of a medium of many parts: a pin without a page is on all. */
export function pinsOnPage(pins: readonly Pin[] | undefined, page: number): Pin[] | undefined {
  return pins?.filter((p) => p.page === undefined || p.page === page);
}

/** Where a reviewer clicked to raise an issue: a point of the medium, or an object. */
export interface Spot {
  position?: Vec | number;
  objectId?: string;
  /** The page (frame, slice) of a medium of many parts the position is on, 0-based. */
  page?: number;
}

/** What every medium's editor is given by the work page: the shell's part is the same for all. */
export interface SurfaceEditorProps {
  ontology: Ontology;
  /** The asset: its address, and its text once loaded for a text medium. */
  asset: {
    url: string | undefined;
    text?: string;
    textError?: string;
    /** An asset made of several images: their addresses in page order. */
    pages?: string[] | undefined;
    /** A point cloud's sensors and cameras with their calibration (the asset's `metadata.pct`). */
    pct?: unknown;
  };
  /**
   * The project's `segmentationOverlap`: segmentation objects of one image that overlap are cut by
   * it as they are drawn (the later or the earlier one wins), and with `earlier-wins` a brush class
   * does not paint over another's pixels.
   */
  segmentationOverlap?: 'allow' | 'later-wins' | 'earlier-wins' | undefined;
  /** A point-cloud project's settings (`pctConfig`): overlapping cuboids, segmentation... */
  pctConfig?: Record<string, unknown> | undefined;
  initial: EditorAnswer;
  /** Every change of the answer (drafts are saved from here). */
  onChange(answer: EditorAnswer): void;
  /** Problems to show on the form (after a refused submit). */
  problems: Problem[];
  readOnly?: boolean;
  /** Review: clicks raise an issue at a spot instead of drawing. */
  onPick?(spot: Spot): void;
  pins?: Pin[];
  /** The stage's buttons (Submit, Skip, Accept, Reject...), drawn in the action bar. */
  actions?: ReactNode;
  /** Shown above the questions: the task's open issues, a consensus score... */
  aside?: ReactNode;
  /** The task's brush layer as stored (a link to a PNG of the image's size), for media that paint. */
  brushUrl?: string | null | undefined;
  /** A video's brush layers as stored, one per frame with a layer (the task's `brushFrames`). */
  brushFrames?: { page: number; url: string }[] | undefined;
  /** The brush layer changed (a stroke, a fill, an undo): drafts and the submit save it. */
  onBrushChange?(layer: PaintedLayer): void;
  /** The task's voxel layer as stored (a link to a `.seg.nrrd` of the volume's size), for volumes. */
  medicalBrushUrl?: string | null | undefined;
  /** Set when the organization has an Assist plugin: segmentation and brush tools offer Assist. */
  assist?: AssistClient | undefined;
  /** Where the editor puts its own check of a submit (the work page asks it before submitting). */
  submitGate?: { current: SubmitGate | undefined };
  /** A point-cloud project's external validator, through the server (`pctConfig.externalValidation`). */
  pctValidator?: PctValidator | undefined;
}

/** The external validator's verdict on an answer: frames counted from 0, as the answer's pages. */
export interface PctVerdict {
  valid: boolean;
  frames: number[];
  errors: { message: string; frame?: number | undefined; objectId?: string | undefined }[];
  message?: string | undefined;
}

/** Asks the project's external validator, through the server, what it makes of an answer. */
export interface PctValidator {
  /** `frame`: the frame in view, from 0 (checked when the project validates a single frame). */
  check(answer: ApiAnswer, frame: number): Promise<PctVerdict>;
}

/**
 * A medium's own check of a submit, beyond the ontology's questions (a point cloud's coverage
 * rule, its project's external validator): given the answer as it is about to be sent, answers
 * the words that refuse the submit, or nothing to let it go through.
 */
export type SubmitGate = (answer: ApiAnswer) => Promise<string | undefined>;

/** What the editor's Assist sends: points inside and outside the object, and a box, in medium pixels. */
export interface AssistQuery {
  schemaId: string;
  positive: Vec[];
  negative: Vec[];
  box?: [number, number, number, number] | undefined;
}

/** The plugin's candidate: a mask PNG (a data: link) of the image's size, or zones. */
export interface AssistReply {
  mask?: string | undefined;
  zones?: { region: Vec[]; holes: Vec[][] }[] | undefined;
}

/** Asks the organization's Assist plugin, through the server, for a candidate object. */
export interface AssistClient {
  request(query: AssistQuery): Promise<AssistReply>;
}

/** A raster layer painted over the medium, as the work page saves it. */
export interface PaintedLayer {
  /**
   * The answer's field it is saved as: `brushDataUrl` (a PNG, the default) or, for a volume's
   * voxels, `medicalBrushDataUrl` (a `.seg.nrrd`).
   */
  readonly field?: 'brushDataUrl' | 'medicalBrushDataUrl';
  /** Changed since it was last saved (the saver clears it, and sets it again when a save fails). */
  dirty: boolean;
  empty(): boolean;
  /** The layer's file: one PNG of the medium's size, or a `.seg.nrrd` of the volume's. */
  toBlob(): Promise<Blob>;
  /**
   * A layer saved in parts (a video's brush layers, one per frame): uploads the parts changed
   * since the last save with `upload` and answers the `brushFrames` annotate takes.
   */
  saveParts?(upload: (png: Blob) => Promise<string>): Promise<{ brushFrames: { page: number; url: string }[] }>;
}

/**
 * A Surface is one medium (an image; a text; later a video's frames, a document's pages, a
 * volume's slices, a point cloud): it owns the medium's coordinates and converts between them
 * and the screen in ONE place (`toScreen` / `toMedium` under a view, its pan and zoom), and it
 * hosts the tools of its space. Each lives in a folder of media/ and is found by media/surfaces.ts.
 */
export interface Surface<View = unknown, Medium = unknown, Screen = unknown> {
  /** The asset kind it shows (work/asset-kind.ts names it from the file). */
  readonly kind: string;
  /** The tools it hosts: `plane` (boxes, polygons...) or `text` (entity spans). */
  readonly space: ToolSpace;
  toScreen(view: View, at: Medium): Screen;
  toMedium(view: View, at: Screen): Medium;
  /**
   * Views a person reaches (fitted, zoomed about a point, panned) with points of the medium under
   * each: what the contract tests walk, and a reader's example.
   */
  examples(): { view: View; points: Medium[] }[];
  /** The editor of an asset of this kind: the shell (toolbar, panels, questions, actions) and the medium. */
  readonly Editor: ComponentType<SurfaceEditorProps>;
}
