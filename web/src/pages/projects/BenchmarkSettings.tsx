import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { useUpdateProject } from '../../api/projects';
import type { Project } from '../../api/types';
import { ErrorNotice } from '../../components/ErrorNotice';
import { CheckboxField, NumberField } from '../../components/Field';
import { errorLookup, fieldErrorsOf } from '../../components/field-errors';

/** The likelihood a Manager gets when turning benchmarking on with none set, as the original does. */
const DEFAULT_PERCENT = 10;

interface Measured {
  submissions: number;
  labelers: number;
}

/** What turning benchmarking off would delete: the project's benchmark submissions. */
async function measured(projectId: string): Promise<Measured> {
  const data = await unwrap<{ submissions: { labeler: string }[] }>(
    'GET',
    '/v2/project/{projectId}/benchmarkSubmissions',
    api.GET('/v2/project/{projectId}/benchmarkSubmissions', { params: { path: { projectId }, query: {} } }),
  );
  return { submissions: data.submissions.length, labelers: new Set(data.submissions.map((s) => s.labeler)).size };
}

/**
 * Benchmarking: on or off, the likelihood of a benchmark (0 pauses), and the cutoff. Turning it
 * off after benchmarks were worked deletes what was measured, so a dialog says what first.
 */
export function BenchmarkSettings({ project }: { project: Project }) {
  const [enabled, setEnabled] = useState(project.benchmarkEnabled ?? false);
  const [percent, setPercent] = useState<number | undefined>(
    project.benchmarkRatio !== undefined && project.benchmarkRatio !== null
      ? Math.round(project.benchmarkRatio * 1000) / 10
      : undefined,
  );
  const [cutoff, setCutoff] = useState(project.benchmarkCutoff ?? false);
  const [threshold, setThreshold] = useState<number | undefined>(project.benchmarkThreshold ?? undefined);
  const [confirming, setConfirming] = useState<Measured | null>(null);
  const [checkError, setCheckError] = useState<unknown>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const update = useUpdateProject(project._id);
  const errorOf = errorLookup(fieldErrorsOf(update.error));

  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (confirming && !d.open) d.showModal();
    if (!confirming && d.open) d.close();
  }, [confirming]);

  const save = () => {
    setConfirming(null);
    update.mutate({
      benchmarkEnabled: enabled,
      benchmarkCutoff: cutoff,
      ...(percent !== undefined ? { benchmarkRatio: percent / 100 } : {}),
      ...(threshold !== undefined ? { benchmarkThreshold: threshold } : {}),
    });
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setCheckError(null);
    if (project.benchmarkEnabled === true && !enabled) {
      try {
        const found = await measured(project._id);
        if (found.submissions > 0) return setConfirming(found);
      } catch (err) {
        return setCheckError(err);
      }
    }
    save();
  };
  const turnOn = (on: boolean) => {
    setEnabled(on);
    if (on && !percent) setPercent(DEFAULT_PERCENT);
  };

  return (
    <section className="card" aria-labelledby="settings-benchmarks">
      <h2 id="settings-benchmarks">Benchmarks</h2>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <CheckboxField
          label="Hand out benchmark tasks"
          checked={enabled}
          onChange={turnOn}
          error={errorOf('benchmarkEnabled')}
        />
        <NumberField
          label="Benchmark likelihood (%)"
          hint="The chance that a labeler's next task is a benchmark they have not done. 0 pauses benchmarking: nobody gets one and nobody is stopped, and nothing measured is deleted."
          value={percent}
          onChange={setPercent}
          min={0}
          max={100}
          error={errorOf('benchmarkRatio')}
        />
        <CheckboxField
          label="Stop labelers whose average benchmark score is below the threshold"
          checked={cutoff}
          onChange={setCutoff}
          error={errorOf('benchmarkCutoff')}
        />
        <NumberField
          label="Threshold (average score, 0 to 100)"
          hint="Judged after 3 benchmarks; empty means 70. A Manager lets a stopped labeler continue."
          value={threshold}
          onChange={setThreshold}
          min={0}
          max={100}
          error={errorOf('benchmarkThreshold')}
        />
        {checkError !== null && <ErrorNotice place="form" error={checkError} />}
        {update.isError && <ErrorNotice place="form" error={update.error} fieldsShown />}
        {update.isSuccess && (
          <p className="form-ok" role="status">
            Benchmark settings saved.
          </p>
        )}
        <button type="submit" className="primary" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save benchmark settings'}
        </button>
      </form>
      <dialog
        ref={dialog}
        className="confirm-dialog"
        aria-labelledby="benchmarks-off-title"
        onCancel={() => setConfirming(null)}
      >
        <h2 id="benchmarks-off-title">Turn benchmarking off?</h2>
        {confirming && (
          <p>
            This deletes {confirming.submissions} benchmark{' '}
            {confirming.submissions === 1 ? 'submission' : 'submissions'} of {confirming.labelers}{' '}
            {confirming.labelers === 1 ? 'labeler' : 'labelers'}, with their scores, and lets every labeler the cutoff
            stopped work again. The benchmark tasks and their references stay. To pause instead, keep benchmarking on
            and set the likelihood to 0.
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" onClick={() => setConfirming(null)}>
            Keep benchmarking
          </button>
          <button type="button" className="danger" onClick={save}>
            Delete the measurements and turn off
          </button>
        </div>
      </dialog>
    </section>
  );
}
