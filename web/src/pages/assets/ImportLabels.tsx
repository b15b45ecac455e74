import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { type LabelFormat, type LabelImportReport, importLabelFile, LABEL_FORMAT_NAMES } from '../../api/label-import';
import type { Project } from '../../api/types';
import { FileField, SelectField } from '../../components/Field';
import { ErrorNotice } from '../../components/ErrorNotice';

/** The format a file's name suggests; the person can still choose another. */
export function formatOf(name: string): LabelFormat | undefined {
  const lower = name.toLowerCase();
  if (lower.endsWith('.xml')) return 'voc';
  if (lower.endsWith('.zip')) return 'yolo';
  if (lower.endsWith('.json')) return 'coco';
  return undefined;
}

const plural = (n: number, word: string) => `${n.toLocaleString()} ${word}${n === 1 ? '' : 's'}`;

/** What the import took and what it left, as the server reported it. */
function ReportView({ report }: { report: LabelImportReport }) {
  return (
    <div className="import-report" aria-label="Label import report">
      <p className="form-ok" role="status">
        Imported {plural(report.objects, 'object')} into {plural(report.tasks, 'task')} from{' '}
        {plural(report.images, 'image')}
        {report.clipped > 0 ? ` (${plural(report.clipped, 'object')} clipped to its image)` : ''}.
      </p>
      {(report.skippedImages > 0 || report.skipped.length > 0 || report.unmatchedCategories.length > 0) && (
        <>
          <h3>Left out</h3>
          <ul>
            {report.skipped.map((s) => (
              <li key={s.reason}>
                {s.count.toLocaleString()}: {s.reason}
              </li>
            ))}
            {report.unmatchedCategories.map((c) => (
              <li key={`category:${c.name}`}>
                Category “{c.name}” matches no tool of the ontology ({plural(c.objects, 'object')})
              </li>
            ))}
            {report.skippedImageList.map((s) => (
              <li key={`image:${s.source}`}>
                {s.source}: {s.reason}
              </li>
            ))}
            {report.skippedImages > report.skippedImageList.length && (
              <li>…and {plural(report.skippedImages - report.skippedImageList.length, 'more image')}</li>
            )}
          </ul>
        </>
      )}
    </div>
  );
}

/**
 * Another tool's labels (COCO, YOLO, Pascal VOC, Label Studio, CVAT) brought in as pre-labels of
 * the tasks still in Start, matched to assets by file name or external id; the answer is the
 * server's report of what was taken and what was skipped.
 */
export function ImportLabels({ project }: { project: Project }) {
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | undefined>();
  const [format, setFormat] = useState<LabelFormat>('coco');
  const [busy, setBusy] = useState(false);
  const [report, setReport] = useState<LabelImportReport | undefined>();
  const [error, setError] = useState<unknown>();

  const pick = (picked: File | undefined) => {
    setFile(picked);
    setReport(undefined);
    setError(undefined);
    const guess = picked && formatOf(picked.name);
    if (guess) setFormat(guess);
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setReport(undefined);
    setError(undefined);
    if (!file) return setError('Choose a label file first.');
    setBusy(true);
    try {
      setReport(await importLabelFile(project._id, format, file));
      await queryClient.invalidateQueries({ queryKey: ['tasks', project._id] });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="card" aria-labelledby="import-labels-title">
      <h2 id="import-labels-title">Import labels</h2>
      <p className="muted">
        Labels made in another tool become pre-labels of the tasks still in Start, matched to assets by file name or
        external id.
      </p>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <FileField
          label="Label file"
          accept=".json,.xml,.zip"
          onChange={pick}
          hint="A COCO or Label Studio JSON file, a CVAT or Pascal VOC XML file, or a zip of a dataset folder."
        />
        <SelectField
          label="Label format"
          value={format}
          options={Object.entries(LABEL_FORMAT_NAMES).map(([value, label]) => ({ value, label }))}
          onChange={(v) => setFormat(v as LabelFormat)}
        />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Importing labels…' : 'Import labels'}
        </button>
      </form>
      {report && <ReportView report={report} />}
      {error !== undefined && <ErrorNotice place="form" error={error} />}
    </section>
  );
}
