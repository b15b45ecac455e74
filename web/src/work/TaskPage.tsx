import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Link, useLocation, useNavigate, useParams, useSearchParams } from 'react-router';
import { projectQuery, useProject } from '../api/projects';
import type { Project } from '../api/types';
import {
  fillAssetSize,
  annotate,
  uploadFrameLayer,
  uploadLayer,
  review,
  skipTask,
  takeNext,
  releaseOnLeave,
  releaseTask,
  takeTask,
  useQueuePosition,
  useTaskIssues,
  useWorkTask,
  useAssistPlugins,
  requestAssist,
  checkPctAnswer,
  workKeys,
  workTaskPath,
  type Issue,
  type QueuePosition,
  type WorkTask,
} from '../api/work';
import { Loading } from '../components/States';
import type { SessionView } from '../auth/session-api';
import { SESSION_KEY, useSession } from '../auth/useSession';
import { ErrorNotice } from '../components/ErrorNotice';
import { errorText } from '../components/error-text';
import { ClassificationsOnly } from '../editor/shell/ClassificationsOnly';
import type { AssistClient, AssistReply, PaintedLayer, Pin, PctValidator, SubmitGate } from '../editor/core/surface';
import { fromApi, toApi } from '../editor/core/codec';
import type { Ontology } from '../editor/core/ontology';
import type { EditorAnswer } from '../editor/core/answer';
import { defaultAnswers, submitProblems, type Problem } from '../editor/core/validate';
import { loadImage } from '../editor/media/image/useImage';
import { surfaceFor } from '../editor/media/surfaces';
import { useWorkClock } from '../editor/shell/useWorkClock';
import '../editor/editor.css';
import { assetKind } from './asset-kind';
import { IssueForm, IssueList, type PickedSpot } from './Issues';
import { issuePins } from './pins';
import { useAssetText } from './useAssetText';
import { useDrafts } from './useDrafts';
import { labelWork, labelWorkWords } from './labelled-by';
import { useTaskHistory } from '../api/tasks';
import './work.css';

/** /work/tasks/:taskId: one task in the editor, with its stage's buttons. */
export default function TaskPage() {
  const { taskId = '' } = useParams();
  // Links from the queue and "next" name the project too, so it loads beside the task rather
  // than after it (TaskInProject then finds it cached; a wrong hint costs one extra request).
  const [params] = useSearchParams();
  const hinted = params.get('project') ?? '';
  useQuery({ ...projectQuery(hinted), enabled: hinted !== '' });
  const task = useWorkTask(taskId);
  if (task.isPending) return <Loading what="the task" />;
  if (task.isError) return <ErrorNotice error={task.error} onRetry={() => void task.refetch()} />;
  return <TaskInProject task={task.data} />;
}

function TaskInProject({ task }: { task: WorkTask }) {
  const project = useProject(task.project);
  if (project.isPending) return <Loading what="the project" />;
  if (project.isError) return <ErrorNotice error={project.error} onRetry={() => void project.refetch()} />;
  // A new task is a new workspace: history, clock and drafts start over.
  return <Workspace key={task._id} task={task} project={project.data} />;
}

type Finished = { stageName: string; onlySkipped?: boolean; done: string };

/** What the last action did ("Submitted street-1."), said on the page that follows it. */
function useDoneWords(): string | undefined {
  const state: unknown = useLocation().state;
  return state && typeof state === 'object' && 'done' in state && typeof state.done === 'string'
    ? state.done
    : undefined;
}

function Workspace({ task, project }: { task: WorkTask; project: Project }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const ontology = project.categorySchema as Ontology;
  const kind = assetKind(task.asset.data, ontology, project.type, task.asset.dataset);
  const isReview = task.stageType === 'Review';
  const isLabel = task.stageType === 'Label';
  const workable = isReview || isLabel;
  const editorOntology: Ontology = kind.kind === 'unsupported' ? { ...ontology, tools: [] } : ontology;

  const start = useMemo(() => {
    const decoded = fromApi(task.answer, editorOntology);
    const fresh = !task.answer?.classifications?.length && decoded.value.classifications.length === 0;
    const value: EditorAnswer = fresh
      ? { ...decoded.value, classifications: defaultAnswers(editorOntology.classifications) }
      : decoded.value;
    return { value, kept: decoded.kept };
    // The answer as the task opened; later changes belong to the editor.
  }, [task._id]);

  const answer = useRef<EditorAnswer>(start.value);
  const clock = useWorkClock(project.idleTimeout, task._id);
  // The painted layer (an image's brush layer, a volume's voxels), once the editor has one: uploaded
  // when it changed, its link sent with the answer.
  const brushLayer = useRef<PaintedLayer | null>(null);
  const brushUrl = useCallback(async () => {
    const layer = brushLayer.current;
    if (!layer?.dirty) return undefined;
    if (layer.saveParts) return layer.saveParts((png) => uploadFrameLayer(task._id, png));
    layer.dirty = false;
    try {
      const field = layer.field ?? 'brushDataUrl';
      if (layer.empty()) return field === 'brushDataUrl' ? { brushDataUrl: '' } : { medicalBrushDataUrl: '' };
      return await uploadLayer(task._id, await layer.toBlob(), field);
    } catch (err) {
      layer.dirty = true;
      throw err;
    }
  }, [task._id]);
  const drafts = useDrafts(task._id, clock, workable, brushUrl);
  const me = useSession().data?.user.email;
  const mine = workable && me !== undefined && task.assignee === me;
  const position = useQueuePosition(task, mine);
  // Leaving the editor gives an untouched task back to its stage (see useReleaseOnLeave).
  const gone = useReleaseOnLeave(task, mine && !(isLabel && task.reviewStatus === 'Rejected'), drafts.state);
  const [problems, setProblems] = useState<Problem[]>([]);
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | undefined>(undefined);
  const [finished, setFinished] = useState<Finished | undefined>(undefined);
  const [picking, setPicking] = useState(false);
  const [spot, setSpot] = useState<PickedSpot | undefined>(undefined);
  const [objects, setObjects] = useState(start.value.objects);
  const submitGate = useRef<SubmitGate | undefined>(undefined);
  const issues = useTaskIssues(task._id);
  const text = useAssetText(kind.kind === 'text' ? task.asset.data : null);

  // An image the server knows no size of (its header could not be read): the editor decodes it
  // anyway, and hands the size over for exports and metrics.
  useEffect(() => {
    const url = task.asset.data;
    if (kind.kind !== 'image' || task.asset.hasSize !== false || !url || !workable) return;
    void loadImage(url)
      .then(({ width, height }) => fillAssetSize(task.asset._id, width, height))
      .catch(() => undefined);
  }, [task._id]);

  const onChange = useCallback(
    (next: EditorAnswer) => {
      answer.current = next;
      setObjects(next.objects);
      if (tried) setProblems(submitProblems(next, editorOntology));
      drafts.changed(toApi(next, start.kept));
    },
    [drafts, tried, editorOntology, start.kept],
  );
  // Assist: offered on segmentation and brush tools when the organization has a plugin answering it.
  const assistable =
    workable &&
    kind.kind === 'image' &&
    (ontology.tools ?? []).some((t) => t.tool === 'segmentation' || t.tool === 'brush');
  const assistPlugin = useAssistPlugins(assistable).data?.[0];
  const assist = useMemo<AssistClient | undefined>(
    () =>
      assistPlugin
        ? { request: (q) => requestAssist(task._id, { pluginId: assistPlugin._id, ...q }) as Promise<AssistReply> }
        : undefined,
    [assistPlugin?._id, task._id],
  );
  const pctValidator = useMemo<PctValidator>(
    () => ({ check: (answer, frame) => checkPctAnswer(task._id, answer, frame) }),
    [task._id],
  );
  const onBrushChange = useCallback(
    (layer: PaintedLayer) => {
      brushLayer.current = layer;
      drafts.changed(toApi(answer.current, start.kept));
    },
    [drafts, start.kept],
  );

  /**
   * After a submit or review: the next task of the same stage, or the "no more tasks" state.
   * True when it went on to another task.
   */
  const goNext = async (done: string): Promise<boolean> => {
    await queryClient.invalidateQueries({ queryKey: workKeys.queue });
    const next = await takeNext(project._id, task.stage);
    // After a skip, /next gives the skipped task back only when nothing else waits.
    if (next?._id === task._id) setFinished({ stageName: task.stageName, onlySkipped: true, done });
    else if (next) {
      queryClient.setQueryData(workKeys.task(next._id), next);
      await navigate(workTaskPath(next._id, project._id), { state: { done } });
      return true;
    } else setFinished({ stageName: task.stageName, done });
    return false;
  };
  const doneWords = useDoneWords();

  // One action at a time: a second click or key press while one runs (a submit, a skip) is
  // dropped, never sent for a task the page is already leaving. Once it has gone on to the next
  // task this workspace stays busy: the router changes the address before the next task's
  // workspace replaces this one, and a key pressed in between would act on this task again.
  const running = useRef(false);
  const run = async (done: string, act: () => Promise<unknown>) => {
    if (running.current) return;
    running.current = true;
    // The action decides what becomes of the task: leaving after it releases nothing.
    gone.current = true;
    setBusy(true);
    setFailure(undefined);
    let left = false;
    try {
      await act();
      left = await goNext(done);
    } catch (err) {
      setFailure(errorText(err));
      gone.current = false;
    } finally {
      if (!left) {
        running.current = false;
        setBusy(false);
      }
    }
  };

  /**
   * Submit (Label) or Accept (Review): refused while required answers are missing, or while the
   * medium's own check (submitGate) says why not.
   */
  const submit = async () => {
    const found = submitProblems(answer.current, editorOntology);
    setTried(true);
    setProblems(found);
    if (found.length) {
      setFailure(`Not submitted: ${found.length === 1 ? 'one answer is' : `${found.length} answers are`} missing.`);
      return;
    }
    const gate = submitGate.current;
    if (gate) {
      if (running.current) return;
      running.current = true;
      setBusy(true);
      setFailure(undefined);
      let refusal: string | undefined;
      try {
        refusal = await gate(toApi(answer.current, start.kept));
      } catch (err) {
        refusal = `Not submitted: ${errorText(err)}`;
      } finally {
        running.current = false;
        setBusy(false);
      }
      if (refusal) {
        setFailure(refusal);
        return;
      }
    }
    void run(`${isReview ? 'Accepted' : 'Submitted'} ${task.externalId}.`, async () =>
      annotate(task._id, toApi(answer.current, start.kept), await drafts.settle(), true, await brushUrl()),
    );
  };

  const reject = () =>
    void run(`Rejected ${task.externalId}: it goes back to its labeler.`, async () => {
      // The reviewer's corrections and time go with the task, then the decision.
      await annotate(task._id, toApi(answer.current, start.kept), await drafts.settle(), false, await brushUrl());
      await review(task._id, 'Rejected');
    });

  const canSkip = isLabel && project.taskSkipEnabled === true;
  /** Skip: the answer so far is kept as a draft, the task stays in the stage, the next one opens. */
  const skip = () =>
    void run(`Skipped ${task.externalId}.`, async () => {
      await annotate(task._id, toApi(answer.current, start.kept), await drafts.settle(), false, await brushUrl());
      await skipTask(task._id);
    });
  /** Release and leave: pending changes are saved, the task goes back to its stage, the work queue opens. */
  const releaseAndLeave = async () => {
    if (running.current) return;
    running.current = true;
    gone.current = true;
    setBusy(true);
    setFailure(undefined);
    try {
      // Changes not saved yet go with the task; an untouched task stays without a draft.
      await drafts.flush();
      await releaseTask(task._id);
      await queryClient.invalidateQueries({ queryKey: workKeys.queue });
      await navigate('/work', { state: { done: `Released ${task.externalId}: it waits in ${task.stageName} again.` } });
    } catch (err) {
      setFailure(errorText(err));
      gone.current = false;
      running.current = false;
      setBusy(false);
    }
  };

  const skipRef = useRef(skip);
  skipRef.current = skip;
  // A layout effect: the key works from the moment the Skip button shows, not a paint later.
  useLayoutEffect(() => {
    if (!canSkip) return;
    // Alt+S (by the key's place, so Option+S on a Mac works too); the editor's own keys leave Alt alone.
    const onKey = (e: KeyboardEvent) => {
      if (!e.altKey || e.ctrlKey || e.metaKey || e.code !== 'KeyS') return;
      e.preventDefault();
      skipRef.current();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [canSkip]);

  const pins: Pin[] = useMemo(() => issuePins(issues.data ?? [], objects), [issues.data, objects]);

  if (finished) {
    return (
      <div className="work-finished state state-empty" role="status">
        <p className="work-done">{finished.done}</p>
        <h1>No more tasks</h1>
        <p>
          {finished.onlySkipped
            ? `Only the task you skipped waits for you in ${finished.stageName} of ${project.name}.`
            : `No task waits for you in ${finished.stageName} of ${project.name}.`}
        </p>
        <Link to="/work">Back to the work queue</Link>
      </div>
    );
  }

  const readOnly = !workable;
  const aside = (
    <>
      <TaskFacts task={task} drafts={drafts} workable={workable} issues={issues.data ?? []} position={position.data} />
      {isReview && <LabelledBy taskId={task._id} />}
      {(isReview || (issues.data?.length ?? 0) > 0) && (
        <IssueList issues={issues.data ?? []} objects={objects} ontology={ontology} role={project.role} />
      )}
      {isReview && kind.kind !== 'unsupported' && (
        <div className="issue-raise">
          <button
            type="button"
            aria-pressed={picking}
            onClick={() => {
              setPicking(!picking);
              setSpot(undefined);
            }}
          >
            {picking ? 'Stop raising issues' : 'Raise an issue'}
          </button>
          {picking && !spot && (
            <p className="hint">
              {kind.kind === 'image' || kind.kind === 'video'
                ? 'Click the image where the problem is, or click an object.'
                : kind.kind === 'pdf'
                  ? 'Click the page where the problem is, or click a mark.'
                  : 'Click the character where the problem is.'}
            </p>
          )}
        </div>
      )}
      {isReview && kind.kind === 'unsupported' && !spot && (
        <button type="button" onClick={() => setSpot({})}>
          Raise an issue
        </button>
      )}
      {spot && (
        <IssueForm
          taskId={task._id}
          project={project}
          spot={spot}
          objects={objects}
          ontology={ontology}
          onDone={() => {
            setSpot(undefined);
            setPicking(false);
          }}
        />
      )}
    </>
  );

  const actions = (
    <>
      <p className="work-done" role="status" aria-live="polite">
        {doneWords && !busy ? `${doneWords} This is the next task.` : ''}
      </p>
      {failure && <ErrorNotice place="form" className="work-failure" error={failure} />}
      {isLabel && (
        <button type="button" className="primary" disabled={busy} onClick={() => void submit()}>
          Submit
        </button>
      )}
      {canSkip && (
        <button type="button" disabled={busy} onClick={skip} aria-keyshortcuts="Alt+S" title="Skip (Alt+S)">
          Skip
        </button>
      )}
      {isReview && (
        <>
          <button type="button" className="primary" disabled={busy} onClick={() => void submit()}>
            Accept
          </button>
          <button type="button" className="danger" disabled={busy} onClick={reject}>
            Reject
          </button>
        </>
      )}
      {mine && (
        <button
          type="button"
          disabled={busy}
          onClick={() => void releaseAndLeave()}
          title="Give this task back to the stage for someone else and go to the work queue"
        >
          Release and leave
        </button>
      )}
      {!workable && <p className="muted">This task is in {task.stageName}: it opens read-only.</p>}
    </>
  );

  const common = { initial: start.value, onChange, problems, readOnly, actions, aside };
  // The medium's editor, from the registry: each medium is a folder of editor/media/.
  const surface = kind.kind === 'unsupported' ? undefined : surfaceFor(kind.kind);
  return (
    <div className="work-task">
      <h1 className="visually-hidden">
        {task.stageName}: {task.externalId}
      </h1>
      {surface && (
        <surface.Editor
          {...common}
          ontology={editorOntology}
          asset={{
            url: task.asset.data ?? undefined,
            text: text.text,
            textError: text.error,
            pages: task.asset.dataset,
            pct: task.asset.pct,
          }}
          pctConfig={project.pctConfig as Record<string, unknown> | undefined}
          segmentationOverlap={project.segmentationOverlap}
          pins={pins}
          onPick={picking ? setSpot : undefined}
          brushUrl={task.brushDataUrl}
          brushFrames={task.brushFrames}
          medicalBrushUrl={task.medicalBrushDataUrl}
          onBrushChange={onBrushChange}
          assist={assist}
          submitGate={submitGate}
          pctValidator={pctValidator}
        />
      )}
      {!surface && (
        <ClassificationsOnly
          {...common}
          ontology={editorOntology}
          message={kind.kind === 'unsupported' ? kind.what : 'this kind of file'}
        />
      )}
    </div>
  );
}

function TaskFacts({
  task,
  drafts,
  workable,
  issues,
  position,
}: {
  task: WorkTask;
  drafts: ReturnType<typeof useDrafts>;
  workable: boolean;
  issues: Issue[];
  position: QueuePosition | undefined;
}) {
  const saved = drafts.savedAt?.toLocaleTimeString();
  const words: Record<string, string> = {
    clean: task.isDraft ? 'Draft restored' : '',
    unsaved: 'Unsaved changes',
    saving: 'Saving the draft…',
    saved: `Draft saved${saved ? ` at ${saved}` : ''}`,
    failed: 'The draft could not be saved; it is tried again at the next change.',
  };
  return (
    <section className="task-facts" aria-label="Task">
      <p className="task-title">
        <strong>{task.stageName}</strong> · {task.externalId}
      </p>
      {position && <QueuePlace position={position} />}
      {task.reviewStatus === 'Rejected' && task.stageType === 'Label' && (
        <p className="work-note">
          {`Returned by ${returnedBy(task, issues)}: `}
          {task.openIssuesCount > 0
            ? `${task.openIssuesCount} open issue${task.openIssuesCount === 1 ? '' : 's'}, see below.`
            : 'no issue raised.'}
        </p>
      )}
      {task.consensusScore !== null && (
        <p>
          Consensus score: <strong>{Math.round(task.consensusScore * 100)}%</strong>
        </p>
      )}
      {workable && (
        <p className="muted" role="status" aria-live="polite">
          {words[drafts.state]}
        </p>
      )}
    </section>
  );
}

/** For the reviewer: who labelled the task and how long it took them (from its history). */
function LabelledBy({ taskId }: { taskId: string }) {
  const history = useTaskHistory(taskId);
  if (history.isPending) return null;
  if (history.isError) return <ErrorNotice place="form" error={history.error} onRetry={() => void history.refetch()} />;
  return <p className="labelled-by">Labelled by {labelWorkWords(labelWork(history.data))}</p>;
}

/** Who sent a task back: the author of its latest open issue, else whoever moved it last. */
function returnedBy(task: WorkTask, issues: Issue[]): string {
  const open = issues.filter((i) => i.status === 'Open').sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  if (open[0]) return open[0].createdBy;
  return task.updatedBy && task.updatedBy !== task.assignee ? task.updatedBy : 'the reviewer';
}

/**
 * "Task 3 of 12": 3 is one more than the tasks you finished in this stage since you pressed Start
 * (or first opened it in this tab); 12 adds the other tasks you hold there and those waiting for
 * you. Without the waiting count (the project hides it from Labelers) only "Task 3".
 */
function QueuePlace({ position }: { position: QueuePosition }) {
  const of = position.total === null ? '' : ` of ${position.total.toLocaleString('en')}${position.capped ? '+' : ''}`;
  const title =
    `${position.done} finished in ${position.stageName} since you started, ${position.held} more held by you` +
    (position.waiting === null ? '' : `, ${position.waiting} waiting`);
  return (
    <p className="queue-place" title={title}>
      Task {position.position.toLocaleString('en')}
      {of}
    </p>
  );
}

/**
 * Leaving the editor with a task you hold that you did not touch (no answer saved, now or before)
 * gives it back to its stage, so it does not wait for you while you are away: on pagehide with a
 * keepalive request, and when another console page replaces the editor. A task sent back to you
 * by a reviewer stays yours. Answers a ref the page sets once an action (submit, skip, release)
 * decides the task's fate, and which a failed action clears. Coming back to the task (a reload,
 * the back button) takes it again (workTaskQuery); a page restored from the back-forward cache too.
 */
function useReleaseOnLeave(task: WorkTask, eligible: boolean, draftState: string) {
  const queryClient = useQueryClient();
  const gone = useRef(false);
  const alive = useRef(false);
  const touched = useRef(task.isDraft === true);
  if (draftState !== 'clean') touched.current = true;
  const state = useRef({ eligible, updatedAt: task.updatedAt });
  state.current = { eligible, updatedAt: state.current.updatedAt };
  useEffect(() => {
    const leave = () => {
      if (gone.current || touched.current || !state.current.eligible) return;
      const csrf = queryClient.getQueryData<SessionView | null>(SESSION_KEY)?.csrfToken;
      releaseOnLeave(task._id, state.current.updatedAt, csrf);
      return true;
    };
    const onHide = () => {
      if (leave()) gone.current = true;
    };
    const onShow = (e: PageTransitionEvent) => {
      if (!e.persisted || !gone.current || touched.current || !state.current.eligible) return;
      // Back from the cache: the task was released on the way out; take it again.
      gone.current = false;
      void takeTask(task._id)
        .then((t) => {
          state.current.updatedAt = t.updatedAt;
        })
        .catch(() => undefined);
    };
    window.addEventListener('pagehide', onHide);
    window.addEventListener('pageshow', onShow);
    alive.current = true;
    return () => {
      window.removeEventListener('pagehide', onHide);
      window.removeEventListener('pageshow', onShow);
      alive.current = false;
      // After the current work: React's development check unmounts and mounts again at once.
      window.setTimeout(() => {
        if (alive.current) return;
        if (leave()) gone.current = true;
        // Opened again later, the task is read afresh (after being taken back).
        queryClient.removeQueries({ queryKey: workKeys.task(task._id) });
      }, 0);
    };
  }, [task._id, queryClient]);
  return gone;
}
