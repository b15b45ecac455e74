import { ErrorNotice } from '../../components/ErrorNotice';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type AssetInput, importChunk } from '../../api/assets';
import type { Project } from '../../api/types';
import { FileField, SelectField, TextField } from '../../components/Field';
import { errorText } from '../../components/error-text';
import { AssetFileError, fromFile, fromPastedUrls } from './asset-files';

/** Assets per request: big imports go in parts, so the bar moves and one failure stops early. */
const CHUNK = 1000;

/** Import by pasting URLs or choosing a CSV/NDJSON file; optionally into a batch. */
export function ImportAssets({ project }: { project: Project }) {
  const queryClient = useQueryClient();
  const [urls, setUrls] = useState('');
  const [file, setFile] = useState<File | undefined>();
  const [batch, setBatch] = useState('');
  const [progress, setProgress] = useState<{ done: number; total: number } | undefined>();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>();
  const busy = progress !== undefined && progress.done < progress.total && !message;

  const run = async (assets: AssetInput[]) => {
    setMessage(undefined);
    if (assets.length === 0) return setMessage({ ok: false, text: 'There is nothing to import.' });
    setProgress({ done: 0, total: assets.length });
    try {
      for (let at = 0; at < assets.length; at += CHUNK) {
        await importChunk(project._id, assets.slice(at, at + CHUNK), batch ? [batch] : []);
        setProgress({ done: Math.min(at + CHUNK, assets.length), total: assets.length });
      }
      setMessage({ ok: true, text: `Imported ${assets.length} asset${assets.length === 1 ? '' : 's'}.` });
      setUrls('');
    } catch (err) {
      setMessage({ ok: false, text: `Import stopped: ${errorText(err)}` });
    }
    await queryClient.invalidateQueries({ queryKey: ['assets', project._id] });
    await queryClient.invalidateQueries({ queryKey: ['workflow', project._id] });
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const assets = file ? fromFile(file.name, await file.text()) : fromPastedUrls(urls);
      await run(assets);
    } catch (err) {
      setMessage({
        ok: false,
        text: err instanceof AssetFileError ? `The file was not read: ${err.message}` : errorText(err),
      });
    }
  };
  return (
    <section className="card" aria-labelledby="import-title">
      <h2 id="import-title">Import assets</h2>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <TextField
          label="Asset URLs (one a line)"
          value={urls}
          onChange={setUrls}
          multiline
          hint="Public http(s) links, or links your storage signs."
        />
        <FileField
          label="Or a CSV or NDJSON file"
          accept=".csv,.ndjson,.jsonl"
          onChange={setFile}
          hint='CSV: a header line with a data column (the URL) and optionally externalId. NDJSON: one {"data": …} object a line.'
        />
        <SelectField
          label="Put into batch"
          value={batch}
          options={[
            { value: '', label: '(no batch)' },
            ...project.batches.map((b) => ({ value: b._id ?? b.name, label: b.name })),
          ]}
          onChange={setBatch}
        />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Importing…' : 'Import'}
        </button>
      </form>
      {progress && (
        <div className="field">
          <label htmlFor="import-progress">Import progress</label>
          <progress id="import-progress" max={progress.total} value={progress.done}>
            {progress.done} of {progress.total}
          </progress>
          <small>
            {progress.done} of {progress.total}
          </small>
        </div>
      )}
      {message?.ok && (
        <p className="form-ok" role="status">
          {message.text}
        </p>
      )}
      {message && !message.ok && <ErrorNotice place="form" error={message.text} />}
    </section>
  );
}
