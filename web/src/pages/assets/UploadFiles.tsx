import { useQueryClient } from '@tanstack/react-query';
import { type DragEvent, useCallback, useEffect, useRef, useState } from 'react';
import { existingExternalIds } from '../../api/assets';
import type { Project } from '../../api/types';
import { SelectField } from '../../components/Field';
import { ACCEPT, fromDrop, fromInput, isAssetFile, type PickedFile } from './picked-files';
import { sendItem, type UploadItem, type UploadTarget } from './upload-file';
import { UploadList } from './UploadList';
import './assets.css';

/** Files sent at once: enough to hide each request's latency, few enough to keep bars moving. */
const CONCURRENCY = 3;
/** How often, at most, the asset list is read again while files arrive. */
const REFRESH_MS = 1500;

/** externalIds per lookup of the ones the project has, kept well under a URL's length. */
function lookupGroups(paths: string[]): string[][] {
  const groups: string[][] = [];
  let group: string[] = [];
  let length = 0;
  for (const path of paths) {
    if (group.length && (group.length >= 100 || length + path.length > 3000)) {
      groups.push(group);
      group = [];
      length = 0;
    }
    group.push(path);
    length += path.length + 3;
  }
  if (group.length) groups.push(group);
  return groups;
}

async function alreadyThere(projectId: string, paths: string[]): Promise<Set<string>> {
  const known = new Set<string>();
  for (const group of lookupGroups(paths)) {
    try {
      for (const id of await existingExternalIds(projectId, group)) known.add(id);
    } catch {
      // Not known now: the import itself refuses a name the project has.
    }
  }
  return known;
}

/** Drag files or folders (or pick them): each is uploaded with its own bar and becomes an asset. */
export function UploadFiles({ project }: { project: Project }) {
  const queryClient = useQueryClient();
  const [items, setItems] = useState<UploadItem[]>([]);
  const [batch, setBatch] = useState('');
  const [dragging, setDragging] = useState(false);
  const [leftOut, setLeftOut] = useState(0);
  const [tick, setTick] = useState(0);
  const running = useRef(new Set<number>());
  const nextId = useRef(1);
  const lastRefresh = useRef(0);
  const storageId = project.exportStorageId || undefined;

  const patch = useCallback((id: number, change: Partial<UploadItem>) => {
    setItems((list) => list.map((i) => (i.id === id ? { ...i, ...change } : i)));
  }, []);

  const refresh = useCallback(
    (force: boolean) => {
      if (!force && Date.now() - lastRefresh.current < REFRESH_MS) return;
      lastRefresh.current = Date.now();
      void queryClient.invalidateQueries({ queryKey: ['assets', project._id] });
      void queryClient.invalidateQueries({ queryKey: ['workflow', project._id] });
    },
    [queryClient, project._id],
  );

  // Starts queued files while fewer than CONCURRENCY run; runs again on every change.
  useEffect(() => {
    const target: UploadTarget = { projectId: project._id, storageId, batchIds: batch ? [batch] : [] };
    for (const item of items) {
      if (running.current.size >= CONCURRENCY) break;
      if (item.status !== 'queued' || running.current.has(item.id)) continue;
      running.current.add(item.id);
      void sendItem(target, item, (change) => patch(item.id, change)).finally(() => {
        running.current.delete(item.id);
        refresh(running.current.size === 0);
        setTick((t) => t + 1);
      });
    }
  }, [items, tick, project._id, storageId, batch, patch, refresh]);

  const busy = items.some((i) => i.status === 'queued' || i.status === 'uploading' || i.status === 'importing');
  // Leaving the page stops what is being sent: the browser asks first.
  useEffect(() => {
    if (!busy) return;
    const stay = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', stay);
    return () => window.removeEventListener('beforeunload', stay);
  }, [busy]);

  const add = async (picked: PickedFile[]) => {
    const wanted = picked.filter((p) => isAssetFile(p.file));
    setLeftOut(picked.length - wanted.length);
    const listed = new Set(items.filter((i) => i.status !== 'failed').map((i) => i.path));
    const fresh = wanted.filter((p) => !listed.has(p.path));
    if (!fresh.length) return;
    const known = await alreadyThere(
      project._id,
      fresh.map((p) => p.path),
    );
    const added = fresh.map((p): UploadItem => {
      const skip = known.has(p.path);
      return {
        id: nextId.current++,
        file: p.file,
        path: p.path,
        status: skip ? 'skipped' : 'queued',
        sent: 0,
        note: skip ? 'already in the project' : undefined,
      };
    });
    setItems((list) => [...list.filter((i) => !added.some((a) => a.path === i.path)), ...added]);
  };

  const onDrop = (e: DragEvent<HTMLDivElement>) => {
    e.preventDefault();
    setDragging(false);
    void fromDrop(e.dataTransfer).then(add);
  };
  const onDragOver = (e: DragEvent<HTMLDivElement>) => {
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    setDragging(true);
  };
  const retry = (id?: number) =>
    setItems((list) =>
      list.map((i) => (i.status === 'failed' && (id === undefined || i.id === id) ? { ...i, status: 'queued' } : i)),
    );
  const clear = () => setItems((list) => list.filter((i) => i.status !== 'done' && i.status !== 'skipped'));

  return (
    <section className="card upload-card" aria-labelledby="upload-title">
      <h2 id="upload-title">Upload files</h2>
      <div
        className={dragging ? 'drop-zone dragging' : 'drop-zone'}
        role="group"
        aria-label="Drop files or folders here"
        onDragEnter={onDragOver}
        onDragOver={onDragOver}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <p>Drop images, videos or documents here: files, or whole folders.</p>
        <div className="drop-buttons">
          <label className="file-button">
            Choose files
            <input
              type="file"
              multiple
              accept={ACCEPT}
              className="visually-hidden"
              onChange={(e) => void add(fromInput(e.target.files)).then(() => (e.target.value = ''))}
            />
          </label>
          <label className="file-button">
            Choose a folder
            <input
              type="file"
              className="visually-hidden"
              ref={(input) => input?.setAttribute('webkitdirectory', '')}
              onChange={(e) => void add(fromInput(e.target.files)).then(() => (e.target.value = ''))}
            />
          </label>
        </div>
      </div>
      <small className="field-hint">
        {storageId ? "Stored in the project's storage" : "Stored in the server's file store"}; each file becomes an
        asset named by its path in the folder, with a task.
        {leftOut > 0 &&
          ` ${leftOut} file${leftOut === 1 ? ' was' : 's were'} left out: not an image, video or document.`}
      </small>
      <SelectField
        label="Put uploads into batch"
        value={batch}
        options={[
          { value: '', label: '(no batch)' },
          ...project.batches.map((b) => ({ value: b._id ?? b.name, label: b.name })),
        ]}
        onChange={setBatch}
      />
      <UploadList items={items} onRetry={retry} onClear={clear} />
    </section>
  );
}
