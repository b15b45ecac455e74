import { ErrorNotice } from '../../components/ErrorNotice';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { TaskIssue } from '../../api/tasks';
import { ImageCanvas, type ImageCanvasHandle } from '../../editor/media/image/ImageCanvas';
import { useBrushLayer } from '../../editor/tools/brush/useBrushLayer';
import { issuePins } from '../../work/pins';
import { toolColor, type Ontology } from '../../editor/core/ontology';
import { segments, toUtf16 } from '../../editor/media/text/spans';
import type { EditorObject } from '../../editor/core/answer';
import '../../editor/editor.css';

export type AssetKind = 'image' | 'text' | 'other';

const IMAGE = /\.(png|jpe?g|gif|webp|bmp|svg|avif)$/i;
const TEXT = /\.(txt|text|md|csv|json)$/i;

/** What an asset is, from its URL's path (the API keeps no kind): an answer with spans is text. */
export function assetKind(url: string | null, objects: EditorObject[]): AssetKind {
  if (objects.some((o) => o.geometry.kind === 'ner')) return 'text';
  if (!url) return 'other';
  if (url.startsWith('data:image/')) return 'image';
  if (url.startsWith('data:text/')) return 'text';
  let path = url;
  try {
    path = new URL(url, window.location.origin).pathname;
  } catch {
    // Not a URL: judged by its text.
  }
  if (IMAGE.test(path)) return 'image';
  if (TEXT.test(path)) return 'text';
  return 'other';
}

function useColours(ontology: Ontology) {
  return useMemo(() => new Map((ontology.tools ?? []).map((t, i) => [t.schemaId, toolColor(t, i)])), [ontology]);
}

interface TaskAssetProps {
  url: string | null;
  objects: EditorObject[];
  ontology: Ontology;
  issues: TaskIssue[];
  selectedId: string | undefined;
  onSelect: (objectId: string | undefined) => void;
  /** The task's brush layer (a PNG of the image's size), drawn over the image. */
  brushUrl?: string | null | undefined;
}

/** The asset with the answer drawn over it, read-only: an image, a text with its spans, or a link. */
export function TaskAsset(props: TaskAssetProps) {
  const { url, objects, ontology, issues } = props;
  const colours = useColours(ontology);
  const kind = assetKind(url, objects);
  if (kind === 'image') return <TaskImage {...props} colours={colours} />;
  if (kind === 'text' && url) return <TaskText url={url} objects={objects} colours={colours} issues={issues} />;
  return (
    <div className="task-asset task-asset-other">
      <p>This asset is not an image or a text: it is shown as its link.</p>
      {url ? (
        <a href={url} target="_blank" rel="noreferrer">
          {url}
        </a>
      ) : (
        <p className="muted">The asset has no URL.</p>
      )}
    </div>
  );
}

/** An image with its objects (zones included), its brush layer and its issues' pins, read-only. */
function TaskImage(props: TaskAssetProps & { colours: Map<string, string> }) {
  const { url, objects, issues, selectedId, onSelect, brushUrl, colours } = props;
  const canvas = useRef<ImageCanvasHandle>(null);
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);
  const layer = useBrushLayer(!!brushUrl, size, brushUrl, () => canvas.current?.repaint());
  // An image is one page: the pins of issues raised on another (none should be) are left out.
  const pins = issuePins(issues, objects).filter((p) => !p.page);
  return (
    <div
      className="task-asset task-asset-image"
      role="img"
      aria-label={`The image with ${objects.length} objects${brushUrl ? ' and a brush layer' : ''}`}
    >
      <ImageCanvas
        ref={canvas}
        imageUrl={url ?? undefined}
        objects={objects}
        colorOf={(id) => colours.get(id) ?? '#e6194b'}
        drawKind={undefined}
        selectedId={selectedId}
        editable={false}
        onSelect={onSelect}
        onCreate={() => undefined}
        onChange={() => undefined}
        pins={pins}
        layers={layer ? [layer] : []}
        onImageSize={(next) =>
          setSize((was) => (was && was.width === next.width && was.height === next.height ? was : next))
        }
      />
    </div>
  );
}

/** A text asset with the answer's spans highlighted; issues mark the character they point at. */
function TaskText({
  url,
  objects,
  colours,
  issues,
}: {
  url: string;
  objects: EditorObject[];
  colours: Map<string, string>;
  issues: TaskIssue[];
}) {
  const [text, setText] = useState<string | undefined>();
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    setText(undefined);
    setFailed(false);
    fetch(url)
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error(String(r.status)))))
      .then((t) => live && setText(t))
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
    };
  }, [url]);
  if (failed)
    return (
      <div className="task-asset">
        <ErrorNotice
          place="form"
          error={
            <>
              The text could not be read from its address (
              <a href={url} target="_blank" rel="noreferrer">
                open it
              </a>
              ).
            </>
          }
        />
      </div>
    );
  if (text === undefined) return <p className="muted">Loading the text…</p>;
  const marks = new Set(
    issues.flatMap((i) => {
      const n = Number(i.position);
      return i.position !== null && Number.isInteger(n) ? [toUtf16(text, n)] : [];
    }),
  );
  return (
    <div className="task-asset text-content task-text" role="document" aria-label="The text with its spans">
      {segments(text, objects).map((s) => {
        const piece = text.slice(s.from, s.to);
        const top = s.objects[s.objects.length - 1];
        const pinned = [...marks].some((m) => m >= s.from && m < s.to);
        if (!top) return <span key={s.from}>{piece}</span>;
        const color = colours.get(top.schemaId) ?? '#e6194b';
        return (
          <mark
            key={s.from}
            className={pinned ? 'span pinned' : 'span'}
            style={{ background: `${color}33`, borderBottom: `2px solid ${color}` }}
          >
            {piece}
          </mark>
        );
      })}
    </div>
  );
}
