import { type FormEvent, useEffect, useId, useState } from 'react';
import { useOutletContext } from 'react-router';
import { useExportHistory, useRunExport } from '../../api/exports';
import type { Project } from '../../api/types';
import { CheckboxField, SelectField } from '../../components/Field';
import { fieldErrorsOf } from '../../components/field-errors';
import { Empty, Loading } from '../../components/States';
import { ErrorNotice } from '../../components/ErrorNotice';
import { DEFAULT_CHOICES, describeRecord, type ExportChoices, exportQuery, linkExpiry, sizeOf } from './export-query';
import { stagesInFlowOrder } from '../workflow/flow-order';
import './exports.css';

const STATUSES = {
  task: ['TODO', 'Completed', 'Archived'],
  issue: ['Open', 'Resolved'],
} as const;

/** Ticks every second while `on`: how long the export has been running. */
function useElapsed(on: boolean): number {
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    if (!on) return;
    setSeconds(0);
    const started = Date.now();
    const timer = setInterval(() => setSeconds(Math.round((Date.now() - started) / 1000)), 1000);
    return () => clearInterval(timer);
  }, [on]);
  return seconds;
}

function CheckList({
  legend,
  items,
  chosen,
  onChange,
  error,
  none,
}: {
  legend: string;
  items: { value: string; label: string }[];
  chosen: string[];
  onChange: (chosen: string[]) => void;
  error?: string | undefined;
  none: string;
}) {
  const errorId = useId();
  return (
    <fieldset className={error ? 'field-invalid' : undefined} aria-describedby={error ? errorId : undefined}>
      <legend>{legend}</legend>
      {items.length === 0 && <p className="muted">{none}</p>}
      <div className="check-list">
        {items.map((item) => (
          <CheckboxField
            key={item.value}
            label={item.label}
            checked={chosen.includes(item.value)}
            onChange={(on) => onChange(on ? [...chosen, item.value] : chosen.filter((v) => v !== item.value))}
          />
        ))}
      </div>
      {error && (
        <small id={errorId} className="field-error" role="alert">
          {error}
        </small>
      )}
    </fieldset>
  );
}

function DateRange({
  legend,
  from,
  to,
  onChange,
  error,
}: {
  legend: string;
  from: string;
  to: string;
  onChange: (from: string, to: string) => void;
  error?: string | undefined;
}) {
  const id = useId();
  // Two ranges sit side by side: each box's accessible name says which ("Created from").
  const what = legend.replace(/ \(UTC\)$/, '');
  return (
    <fieldset className={error ? 'date-range field-invalid' : 'date-range'}>
      <legend>{legend}</legend>
      <label htmlFor={`${id}-from`}>From</label>
      <input
        id={`${id}-from`}
        aria-label={`${what} from`}
        type="date"
        value={from}
        max={to || undefined}
        onChange={(e) => onChange(e.target.value, to)}
      />
      <label htmlFor={`${id}-to`}>To</label>
      <input
        id={`${id}-to`}
        aria-label={`${what} to`}
        type="date"
        value={to}
        min={from || undefined}
        onChange={(e) => onChange(from, e.target.value)}
      />
      {error && (
        <small className="field-error" role="alert">
          {error}
        </small>
      )}
    </fieldset>
  );
}

/** The project's exports, newest first, as the server keeps them: who, what, and the zip while it lasts. */
function MadeExports({ project }: { project: Project }) {
  const history = useExportHistory(project._id);
  const stageName = (id: string) => project.stages.find((s) => s.id === id || s.name === id)?.name ?? id;
  const batchName = (id: string) => project.batches.find((b) => (b._id ?? b.name) === id)?.name ?? id;
  return (
    <section className="card" aria-labelledby="made-title">
      <h2 id="made-title">Exports of this project</h2>
      {history.isPending && <Loading what="the exports" />}
      {history.isError && <ErrorNotice error={history.error} onRetry={() => void history.refetch()} />}
      {history.data?.exports.length === 0 && <Empty title="No export yet." />}
      {!!history.data?.exports.length && (
        <div className="table-scroll">
          <table className="table compact">
            <thead>
              <tr>
                <th scope="col">Made</th>
                <th scope="col">By</th>
                <th scope="col">What</th>
                <th scope="col">Size</th>
                <th scope="col">Download</th>
              </tr>
            </thead>
            <tbody>
              {history.data.exports.map((e) => {
                const made = new Date(e.createdAt).toLocaleString();
                return (
                  <tr key={e._id}>
                    <td>{made}</td>
                    <td>{e.createdBy}</td>
                    <td>{describeRecord(e, stageName, batchName)}</td>
                    <td>{sizeOf(e.bytes)}</td>
                    <td>
                      {e.exportPath ? (
                        <a href={e.exportPath} download aria-label={`Download the zip of the export made ${made}`}>
                          Zip
                        </a>
                      ) : (
                        <span className="muted">expired</span>
                      )}
                      {e.expiresAt && e.exportPath && (
                        <div className="muted small">until {new Date(e.expiresAt).toLocaleString()}</div>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <p className="muted">
        The server keeps the newest 50 exports of a project; a zip it keeps itself can be downloaded for 24 hours.
      </p>
    </section>
  );
}

/** /projects/:id/exports: choose the filters and the format, run the export, download the zip. */
export default function ExportsPage() {
  const project = useOutletContext<Project>();
  const [c, setC] = useState<ExportChoices>(DEFAULT_CHOICES);
  const run = useRunExport(project._id);
  const seconds = useElapsed(run.isPending);
  const set = (changes: Partial<ExportChoices>) => setC({ ...c, ...changes });
  const errors = fieldErrorsOf(run.error);
  const errorOf = (field: string) =>
    errors
      .filter((e) => e.field === field || e.field.startsWith(`${field}.`) || e.field.startsWith(`${field}[`))
      .map((e) => (e.field === field ? e.message : `${e.field}: ${e.message}`))
      .join('; ') || undefined;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    run.mutate(exportQuery(project._id, c));
  };
  const tasks = c.type === 'task';
  return (
    <div className="exports-page">
      <h1>Exports</h1>
      <div className="exports-layout">
        <form className="card" onSubmit={submit} noValidate aria-labelledby="export-form-title">
          <h2 id="export-form-title">Export {project.name}</h2>
          <div className="inline-form">
            <SelectField
              label="What to export"
              value={c.type}
              options={[
                { value: 'task', label: 'Tasks with their answers' },
                { value: 'issue', label: 'Issues' },
              ]}
              onChange={(type) => set({ type, status: '' })}
              error={errorOf('type')}
            />
            <SelectField
              label="Format"
              value={c.format}
              options={[
                { value: 'json', label: 'JSON in a zip (one array)' },
                { value: 'ndjson', label: 'NDJSON in a zip (one item a line)' },
              ]}
              hint="The download is a zip holding one file: tasks.json, issues.ndjson…"
              onChange={(format) => set({ format })}
              error={errorOf('format')}
            />
            <SelectField
              label="Status"
              value={c.status}
              options={[{ value: '', label: 'Any status' }, ...STATUSES[c.type]]}
              onChange={(status) => set({ status })}
              error={errorOf('status')}
            />
          </div>
          {tasks && (
            <div className="filter-grid">
              <CheckList
                legend="Stages (none checked: every stage)"
                items={stagesInFlowOrder(project.stages).map((s) => ({
                  value: s.id,
                  label: `${s.name ?? s.id} (${s.type})`,
                }))}
                chosen={c.stages}
                onChange={(stages) => set({ stages })}
                error={errorOf('stage')}
                none="The workflow has no stage."
              />
              <CheckList
                legend="Batches (none checked: every asset)"
                items={project.batches.map((b) => ({ value: b._id ?? b.name, label: b.name }))}
                chosen={c.batches}
                onChange={(batches) => set({ batches })}
                error={errorOf('batches')}
                none="The project has no batch."
              />
            </div>
          )}
          <div className="filter-grid">
            <DateRange
              legend="Created (UTC)"
              from={c.createdFrom}
              to={c.createdTo}
              onChange={(createdFrom, createdTo) => set({ createdFrom, createdTo })}
              error={errorOf('createdAt')}
            />
            <DateRange
              legend="Last changed (UTC)"
              from={c.updatedFrom}
              to={c.updatedTo}
              onChange={(updatedFrom, updatedTo) => set({ updatedFrom, updatedTo })}
              error={errorOf('updatedAt')}
            />
          </div>
          {tasks && (
            <fieldset>
              <legend>Each task carries</legend>
              <CheckboxField
                label="The asset’s metadata"
                checked={c.includeMetadata}
                onChange={(includeMetadata) => set({ includeMetadata })}
              />
              <CheckboxField
                label="The stage history (every pass through a stage, with its answer)"
                checked={c.includeHistory}
                onChange={(includeHistory) => set({ includeHistory })}
              />
              <CheckboxField
                label="Consensus copies as items of their own"
                checked={c.consensusCopies}
                onChange={(consensusCopies) => set({ consensusCopies })}
              />
            </fieldset>
          )}
          <div className="save-bar">
            <button type="submit" className="primary" disabled={run.isPending}>
              {run.isPending ? 'Exporting…' : 'Run export'}
            </button>
            <button type="button" disabled={run.isPending} onClick={() => setC(DEFAULT_CHOICES)}>
              Clear the filters
            </button>
          </div>
          <div aria-live="polite" className="export-state">
            {run.isPending && (
              <p role="status">
                <progress aria-label="Export running" /> Exporting: the server writes every matching item into a zip (
                {seconds} s so far). Large projects take a while (about 10 s per 100,000 tasks).
              </p>
            )}
            {run.isError && <ErrorNotice place="form" lead="The export did not run:" error={run.error} />}
            {run.isSuccess && (
              <div className="export-ready" role="status">
                <p>
                  <strong>The export is ready.</strong> The link needs no key: share it only with people who may see
                  these tasks
                  {linkExpiry(run.data.exportPath) &&
                    `; it works until ${linkExpiry(run.data.exportPath)?.toLocaleString()}`}
                  .
                </p>
                <a className="button-link" href={run.data.exportPath} download>
                  Download the export (zip of {c.type}s.{c.format})
                </a>
              </div>
            )}
          </div>
        </form>
        <MadeExports project={project} />
      </div>
    </div>
  );
}
