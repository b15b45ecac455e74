import { ErrorNotice } from '../../components/ErrorNotice';
import { useInfiniteQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { exploreFolder, type Storage, useImportFolder } from '../../api/org';
import { TextField } from '../../components/Field';
import { errorLookup, fieldErrorsOf } from '../../components/field-errors';
import { ApiError } from '../../api/client';
import { Empty, Loading } from '../../components/States';
import { errorText } from '../../components/error-text';
import { wordsOf, ProjectSelect } from './widgets';

const PAGE = 100;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * A listing failure in the provider's words: a 403 or 404 here is the provider refusing the
 * credentials or missing the bucket (the server says which), not the person's role.
 */
function providerError(error: unknown): string {
  const clientError = error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 401;
  return clientError ? error.message : errorText(error);
}

/** The folders above the current one, for the breadcrumb: '' (the bucket), 'a/', 'a/b/'. */
export function folderTrail(folder: string): { name: string; path: string }[] {
  const parts = folder.split('/').filter(Boolean);
  return parts.map((name, i) => ({ name, path: `${parts.slice(0, i + 1).join('/')}/` }));
}

function ImportFolder({ storage, bucket, folder }: { storage: Storage; bucket: string; folder: string }) {
  const [projectId, setProjectId] = useState('');
  const [extensions, setExtensions] = useState('');
  const [batches, setBatches] = useState('');
  const run = useImportFolder();
  const errorOf = errorLookup(fieldErrorsOf(run.error));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const ext = wordsOf(extensions);
    const batch = batches
      .split(/[\n,]+/)
      .map((b) => b.trim())
      .filter(Boolean);
    run.mutate({
      storageId: storage._id,
      bucket,
      folder,
      projectId,
      ...(ext.length ? { extensions: ext } : {}),
      ...(batch.length ? { batches: batch } : {}),
    });
  };
  const answer = run.data?.upload;
  return (
    <form className="import-folder" onSubmit={submit} noValidate aria-labelledby="import-folder-title">
      <h4 id="import-folder-title">Import this folder into a project</h4>
      <p className="muted">
        Every file under <code>{folder || '/'}</code>, sub-folders included, becomes an asset; files already imported
        are skipped.
      </p>
      <div className="inline-form">
        <ProjectSelect
          label="Import into project"
          none="Choose a project"
          value={projectId}
          onChange={setProjectId}
          error={errorOf('projectId')}
        />
        <TextField
          label="Only these extensions"
          value={extensions}
          onChange={setExtensions}
          hint="jpg, png (blank: all)"
          error={errorOf('extensions')}
        />
        <TextField
          label="Into batches"
          value={batches}
          onChange={setBatches}
          hint="Names or ids, separated by commas (optional)"
          error={errorOf('batches')}
        />
        <button type="submit" disabled={!projectId || run.isPending}>
          {run.isPending ? 'Importing…' : 'Import folder'}
        </button>
      </div>
      <ErrorNotice place="form" error={run.error} fieldsShown />
      {answer && (
        <p className="form-ok" role="status">
          {answer.queued
            ? `More than 1000 files: the import runs in the background (job ${answer.jobId}); the assets appear as it goes.`
            : `${answer.assetsCreated} assets imported, ${answer.skipped} skipped (already in the project).`}
        </p>
      )}
    </form>
  );
}

function FolderView({ storage, bucket }: { storage: Storage; bucket: string }) {
  const [folder, setFolder] = useState('');
  const level = useInfiniteQuery({
    queryKey: ['explore', storage._id, bucket, folder],
    queryFn: ({ pageParam }) =>
      exploreFolder({
        storageId: storage._id,
        bucket,
        folder,
        limit: PAGE,
        ...(pageParam ? { scrollToken: pageParam } : {}),
      }),
    initialPageParam: '',
    getNextPageParam: (last) => last.scrollToken ?? undefined,
    retry: false,
  });
  const folders = level.data?.pages.flatMap((p) => p.folders) ?? [];
  const files = level.data?.pages.flatMap((p) => p.files) ?? [];
  return (
    <div className="explorer">
      <nav aria-label="Folder path" className="breadcrumb">
        <button type="button" onClick={() => setFolder('')} aria-current={folder === '' ? 'page' : undefined}>
          {bucket}
        </button>
        {folderTrail(folder).map((f) => (
          <span key={f.path}>
            {' / '}
            <button
              type="button"
              onClick={() => setFolder(f.path)}
              aria-current={f.path === folder ? 'page' : undefined}
            >
              {f.name}
            </button>
          </span>
        ))}
      </nav>
      {level.isPending && <Loading what="the folder" />}
      {level.isError && (
        <ErrorNotice
          error={`The ${storage.provider === 'AZURE' ? 'container' : 'bucket'} could not be listed: ${providerError(level.error)}`}
          onRetry={() => void level.refetch()}
        />
      )}
      {level.data && folders.length === 0 && files.length === 0 && <Empty title="This folder is empty." />}
      {(folders.length > 0 || files.length > 0) && (
        <ul className="file-list" aria-label={`Contents of ${folder || bucket}`}>
          {folders.map((f) => (
            <li key={f.path}>
              <button
                type="button"
                className="folder"
                aria-label={`Open folder ${f.name}`}
                onClick={() => setFolder(f.path)}
              >
                {f.name}/
              </button>
            </li>
          ))}
          {files.map((f) => (
            <li key={f.key} className="file" title={f.key}>
              {f.name}
            </li>
          ))}
        </ul>
      )}
      {level.hasNextPage && (
        <button type="button" disabled={level.isFetchingNextPage} onClick={() => void level.fetchNextPage()}>
          {level.isFetchingNextPage ? 'Loading…' : 'Show more files'}
        </button>
      )}
      {level.data && (
        <p className="muted">
          {plural(folders.length, 'folder')}, {plural(files.length, 'file')} shown
          {level.hasNextPage ? ' (more follow)' : ''}.
        </p>
      )}
      {level.data && <ImportFolder storage={storage} bucket={bucket} folder={folder} />}
    </div>
  );
}

/** Browse a storage's bucket one folder level at a time (POST /file-explorer), and import a folder. */
export function StorageBrowser({ storage, onClose }: { storage: Storage; onClose: () => void }) {
  const [bucketText, setBucketText] = useState('');
  const [bucket, setBucket] = useState('');
  const open = (e: FormEvent) => {
    e.preventDefault();
    setBucket(bucketText.trim());
  };
  return (
    <section className="card" aria-labelledby="browse-title">
      <div className="page-head">
        <h3 id="browse-title">Files of {storage.name}</h3>
        <button type="button" onClick={onClose}>
          Close the file browser
        </button>
      </div>
      <form onSubmit={open} className="inline-form" noValidate>
        <TextField
          label={storage.provider === 'AZURE' ? 'Container' : 'Bucket'}
          value={bucketText}
          onChange={setBucketText}
        />
        <button type="submit" disabled={!bucketText.trim()}>
          Open bucket
        </button>
      </form>
      {bucket && <FolderView key={bucket} storage={storage} bucket={bucket} />}
    </section>
  );
}
