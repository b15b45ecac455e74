import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { pinsOnPage, type SurfaceEditorProps } from '../../core/surface';
import { typingInField } from '../../shell/useEditorKeys';
import { VOLUME_KEYS } from '../../shell/editor-keys';
import { MediaUnreadable } from '../../shell/MediaUnreadable';
import { ImageEditor } from '../image/ImageEditor';
import type { FrameSource } from '../image/ImageCanvas';
import { fetchMedia } from '../fetch-media';
import { useOpened } from '../useOpened';
import { PartInput } from '../../shell/PartInput';
import { openDicom } from './dicom';
import {
  CT_PRESETS,
  firstWindow,
  openNrrd,
  planesOf,
  planeSize,
  renderSlice,
  shownSize,
  type Plane,
  type Volume,
  type WindowPreset,
} from './volume';
import { toolColor, type Ontology } from '../../core/ontology';
import { BrushLayer, rgbOf } from '../../tools/brush/layer';
import { MediaError } from '../fetch-media';
import { VoxelLayer, type VoxelClass } from './voxels';

const nameOf = (url: string) => {
  try {
    return decodeURIComponent(new URL(url, location.href).pathname.split('/').pop() ?? url);
  } catch {
    return url;
  }
};

/** Opens the volume: an NRRD file, a DICOM file, or the DICOM files of a series (joined by newlines). */
async function openVolume(key: string): Promise<Volume> {
  const list = key.split('\n');
  if (list.length === 1 && /\.nrrd$/i.test(new URL(list[0]!, location.href).pathname)) {
    return openNrrd(await fetchMedia(list[0]!, 'volume'), nameOf(list[0]!));
  }
  const files = await Promise.all(
    list.map(async (url) => ({ buffer: await fetchMedia(url, 'DICOM file'), name: nameOf(url) })),
  );
  return openDicom(files);
}

/**
 * The `medical-brush` classes as brush classes of the slice, each in a colour of its own (a
 * colour two classes share is nudged), so a painted pixel says its class.
 */
function voxelClasses(ontology: Ontology): { classes: VoxelClass[]; painting: Ontology } {
  const taken = new Set<string>();
  const classes: VoxelClass[] = [];
  const tools = (ontology.tools ?? []).map((t, i) => {
    if (t.tool !== 'medical-brush') return t;
    const [r, g, first] = rgbOf(toolColor(t, i));
    let b = first;
    let color = '';
    for (let k = 0; ; k++) {
      color = `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
      if (!taken.has(color) || k > 255) break;
      b = (b + 1) % 256;
    }
    taken.add(color);
    classes.push({ value: Number(t.schemaId), color });
    return { ...t, tool: 'brush', color };
  });
  return { classes, painting: { ...ontology, tools } };
}

/**
 * The editor of a volume (DICOM, NRRD): the image editor's tools on the axial slice shown, an
 * object belonging to its slice (`page`, counted from 0). The wheel and ArrowUp/ArrowDown turn
 * the slices; dragging with the right button changes the window (left-right its width, up-down
 * its centre), and presets set it.
 */
export function VolumeSurfaceEditor({
  asset,
  onPick,
  pins,
  ontology,
  brushUrl: _brushUrl,
  onBrushChange,
  medicalBrushUrl,
  assist: _assist,
  ...props
}: SurfaceEditorProps) {
  const urls = useMemo(
    () => (asset.pages?.length ? asset.pages : asset.url ? [asset.url] : []),
    [asset.pages, asset.url],
  );
  const loading = useOpened(urls.join('\n'), openVolume, {
    missing: 'The task has no file.',
    failed: 'The volume could not be opened.',
  });
  const volume = loading.status === 'ready' ? loading.value : undefined;
  // Axial slices are drawn on; coronal and sagittal ones are looked at (where the volume has slices).
  const [plane, setPlane] = useState<Plane>('axial');
  const axial = plane === 'axial';
  const total = volume ? planeSize(volume, plane).count : 1;
  const [slice, setSlice] = useState(0);
  // The axial slice, kept while another plane is looked at.
  const axialSlice = useRef(0);
  const [win, setWin] = useState<WindowPreset | undefined>(undefined);
  const [frame, setFrame] = useState<FrameSource>({ canvas: null, width: 0, height: 0, version: 0 });
  const canvas = useMemo(() => (volume ? document.createElement('canvas') : null), [volume]);
  const surfaceRef = useRef<HTMLDivElement>(null);

  // The voxel layer: painted one axial slice at a time on a brush layer in the classes' colours.
  const { classes, painting } = useMemo(() => voxelClasses(ontology), [ontology]);
  const paints = classes.length > 0 || !!medicalBrushUrl;
  const noTools = useMemo(() => ({ ...painting, tools: [] }), [painting]);
  const voxels = useMemo(
    () =>
      volume && paints ? new VoxelLayer(volume.width, volume.height, volume.depth, classes, volume.spacing) : undefined,
    [volume, paints, classes],
  );
  const brush = useMemo(() => {
    if (!voxels || !volume) return undefined;
    const size = shownSize(volume, plane);
    return new BrushLayer(size.width, size.height);
  }, [voxels, volume, plane]);
  const [voxelsRead, setVoxelsRead] = useState(0);
  const [voxelProblem, setVoxelProblem] = useState<string | undefined>(undefined);
  const [filled, setFilled] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (!voxels || !medicalBrushUrl) return;
    let live = true;
    setVoxelProblem(undefined);
    fetchMedia(medicalBrushUrl, 'voxel layer')
      .then((buffer) => voxels.load(buffer))
      .then(
        () => live && setVoxelsRead((n) => n + 1),
        (err: unknown) =>
          live && setVoxelProblem(err instanceof MediaError ? err.message : 'The saved voxel layer could not be read.'),
      );
    return () => {
      live = false;
    };
  }, [voxels, medicalBrushUrl]);

  const go = useCallback((to: number) => setSlice(Math.max(0, Math.min(total - 1, Math.round(to)))), [total]);

  // The middle slice and the file's own window first.
  useEffect(() => {
    if (!volume) return;
    setSlice(Math.floor(volume.depth / 2));
    setWin(firstWindow(volume));
  }, [volume]);

  const look = (next: Plane) => {
    if (!volume || next === plane) return;
    if (axial) axialSlice.current = slice;
    setPlane(next);
    setSlice(next === 'axial' ? axialSlice.current : Math.floor(planeSize(volume, next).count / 2));
  };

  useEffect(() => {
    if (!volume || !canvas || !win) return;
    const { width, height } = shownSize(volume, plane);
    canvas.width = width;
    canvas.height = height;
    const ctx = canvas.getContext('2d')!;
    const out = ctx.createImageData(width, height);
    const at = Math.min(slice, planeSize(volume, plane).count - 1);
    renderSlice(volume, plane, at, win, out);
    ctx.putImageData(out, 0, 0);
    if (voxels && brush && brush.width === width && brush.height === height) {
      // The slice's voxels into the brush layer (its undo starts again on each slice).
      const painted = new ImageData(width, height);
      voxels.drawSlice(plane, at, painted);
      const sheet = document.createElement('canvas');
      sheet.width = width;
      sheet.height = height;
      sheet.getContext('2d')!.putImageData(painted, 0, 0);
      brush.load(sheet);
    }
    setFrame((was) => ({ canvas, width, height, version: was.version + 1 }));
  }, [volume, canvas, plane, slice, win, voxels, brush, voxelsRead]);

  /** A stroke, a fill or an undo on the slice: its voxels taken back from the brush layer. */
  const sliceChanged = (layer: BrushLayer) => {
    if (!voxels || !axial) return;
    const painted = layer.canvas.getContext('2d')!.getImageData(0, 0, layer.width, layer.height);
    if (voxels.takeSlice(slice, painted)) onBrushChange?.(voxels);
    setFilled(undefined);
  };
  const fillBetween = () => {
    if (!voxels) return;
    const slices = voxels.fillBetween();
    setFilled(
      slices.length
        ? `Filled ${slices.length} slice${slices.length === 1 ? '' : 's'} (${slices[0]! + 1} to ${slices[slices.length - 1]! + 1}).`
        : 'Nothing to fill: paint a class on two slices with slices between them.',
    );
    if (slices.length) {
      setVoxelsRead((n) => n + 1);
      onBrushChange?.(voxels);
    }
  };

  useEffect(() => {
    const handler = (e: KeyboardEvent) => {
      if (typingInField(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      let handled = true;
      if (e.key === 'ArrowUp' || e.key === 'PageUp') go(slice + 1);
      else if (e.key === 'ArrowDown' || e.key === 'PageDown') go(slice - 1);
      else if (e.key === 'Home') go(0);
      else if (e.key === 'End') go(total - 1);
      else handled = false;
      if (handled) {
        e.preventDefault();
        e.stopImmediatePropagation();
      }
    };
    window.addEventListener('keydown', handler, true);
    return () => window.removeEventListener('keydown', handler, true);
  });

  // The wheel turns slices (with Ctrl it zooms, as on an image); the right button sets the window.
  useEffect(() => {
    const el = surfaceRef.current;
    if (!el) return;
    const wheel = (e: WheelEvent) => {
      if (e.ctrlKey || e.metaKey) return;
      e.preventDefault();
      e.stopPropagation();
      setSlice((s) => Math.max(0, Math.min(total - 1, s + (e.deltaY < 0 ? 1 : -1))));
    };
    const down = (e: PointerEvent) => {
      if (e.button !== 2 || !win) return;
      e.preventDefault();
      e.stopPropagation();
      const start = { x: e.clientX, y: e.clientY, ...win };
      const move = (m: PointerEvent) => {
        const width = Math.max(1, start.width + (m.clientX - start.x) * 4);
        const center = start.center - (m.clientY - start.y) * 2;
        setWin({ name: 'Custom', center, width });
      };
      const up = () => {
        window.removeEventListener('pointermove', move, true);
        window.removeEventListener('pointerup', up, true);
      };
      window.addEventListener('pointermove', move, true);
      window.addEventListener('pointerup', up, true);
    };
    const menu = (e: Event) => e.preventDefault();
    el.addEventListener('wheel', wheel, { capture: true, passive: false });
    el.addEventListener('pointerdown', down, true);
    el.addEventListener('mousedown', (e) => e.button === 2 && e.stopPropagation(), true);
    el.addEventListener('contextmenu', menu, true);
    return () => {
      el.removeEventListener('wheel', wheel, true);
      el.removeEventListener('pointerdown', down, true);
      el.removeEventListener('contextmenu', menu, true);
    };
  }, [total, win]);

  if (loading.status === 'error') {
    return <MediaUnreadable given={{ ...props, ontology }} problem={loading.message} />;
  }

  const presets = volume ? [...volume.windows, ...CT_PRESETS] : CT_PRESETS;
  const player = () => (
    <div className="video-player page-bar" role="group" aria-label="Slices">
      <div className="video-controls">
        <button type="button" onClick={() => go(slice - 1)} aria-keyshortcuts="ArrowDown" disabled={slice === 0}>
          Previous slice
        </button>
        <PartInput label="Slice" page={slice} total={total} onGo={go} />
        <span>of {volume ? total : '…'}</span>
        <button type="button" onClick={() => go(slice + 1)} aria-keyshortcuts="ArrowUp" disabled={slice >= total - 1}>
          Next slice
        </button>
        {/* The Slice field shows the number; this says it to a screen reader as the wheel turns slices. */}
        <output className="visually-hidden" aria-label="Slice shown" data-slice={slice} data-plane={plane}>
          {plane} slice {slice + 1} of {total}
        </output>
        {volume && planesOf(volume).length > 1 && (
          <>
            <label htmlFor="volume-plane">View</label>
            <select id="volume-plane" value={plane} onChange={(e) => look(e.target.value as Plane)}>
              {planesOf(volume).map((p) => (
                <option key={p} value={p}>
                  {p === 'axial' ? 'Axial' : p === 'coronal' ? 'Coronal' : 'Sagittal'}
                </option>
              ))}
            </select>
          </>
        )}
        <label htmlFor="volume-window">Window</label>
        <select
          id="volume-window"
          value={presets.find((p) => p.center === win?.center && p.width === win.width)?.name ?? ''}
          onChange={(e) => {
            const p = presets.find((x) => x.name === e.target.value);
            if (p) setWin(p);
          }}
        >
          <option value="" disabled>
            Custom
          </option>
          {presets.map((p) => (
            <option key={p.name} value={p.name}>
              {p.name} ({Math.round(p.center)} / {Math.round(p.width)})
            </option>
          ))}
        </select>
        <output aria-label="Window shown" data-center={win?.center} data-width={win?.width}>
          C {Math.round(win?.center ?? 0)} W {Math.round(win?.width ?? 0)}
        </output>
      </div>
      {!axial && (
        <p className="muted" role="note">
          The {plane} view is for looking: objects and the voxel brush are drawn on axial slices.
        </p>
      )}
      {voxels && axial && !props.readOnly && (
        <div className="video-controls">
          <button
            type="button"
            onClick={fillBetween}
            title="Each class painted on two slices fills the slices between them, blending the two shapes"
          >
            Fill between slices
          </button>
          <output aria-label="Slices filled" role="status">
            {filled}
          </output>
        </div>
      )}
      <ErrorNotice place="form" error={voxelProblem} />
      {volume && volume.tags.length > 0 && (
        <dl className="volume-tags" aria-label="Patient and study">
          {volume.tags.map((t) => (
            <div key={t.label}>
              <dt>{t.label}</dt>
              <dd>{t.value}</dd>
            </div>
          ))}
        </dl>
      )}
    </div>
  );

  return (
    <div ref={surfaceRef} className="contents">
      <ImageEditor
        {...props}
        // Another plane than axial offers no tools (the questions stay).
        ontology={axial ? painting : noTools}
        brushLayer={brush}
        onBrushChange={sliceChanged}
        // The slice is drawn from `frame`; the address only tells the canvas when to fit the view.
        imageUrl={`${urls[0]}#${plane}`}
        onPick={
          onPick && axial
            ? (position, objectId) => onPick(objectId ? { objectId, page: slice } : { position, page: slice })
            : undefined
        }
        pins={axial ? pinsOnPage(pins, slice) : []}
        // Objects belong to axial slices: another plane shows none (page -1).
        paged={{
          page: axial ? slice : -1,
          frame,
          separate: true,
          pixelated: true,
          emptyNote: axial
            ? 'Nothing drawn on this slice yet: pick a tool and draw on it.'
            : 'Objects are drawn and listed on axial slices: choose the Axial view to see them.',
          keys: VOLUME_KEYS,
          player,
        }}
      />
    </div>
  );
}
