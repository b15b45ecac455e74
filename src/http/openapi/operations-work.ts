import { Type } from 'typebox';
import { Nullable } from '../../schemas/common.js';
import { QueuePosition, QueueStage } from '../../schemas/task.js';
import { ref } from './components.js';
import { Count, ListOf, type Operation } from './operation-types.js';

const project = Type.Object({ project: ref('Project') });
const task = Type.Object({ task: ref('Task') });
const moved = (what: string) => Count(`tasks ${what}`);
const history = Type.Object({ taskHistory: Type.Array(ref('TaskHistoryEntry')), total: Count('entries') });

/** Projects, assets, batches and tasks: the operations of daily annotation work. */
export const WORK_OPERATIONS: Record<string, Operation> = {
  'GET /v2/listProjects': {
    id: 'listProjects',
    summary: 'List the projects of your organization',
    status: 200,
    data: ListOf('projects', ref('ProjectListItem')),
  },
  'GET /v2/project/:projectId': {
    id: 'getProject',
    summary: 'Get a project with its ontology, workflow and your role on it',
    status: 200,
    data: project,
  },
  'POST /v2/project': {
    id: 'createProject',
    summary: 'Create a project',
    description: 'A new project gets the default workflow Start, Label, Complete and you as its Manager.',
    status: 201,
    data: project,
  },
  'POST /v2/project/:projectId': {
    id: 'updateProject',
    summary: 'Update a project (ontology, workflow, settings)',
    description:
      'Only the fields sent change. A new `stages` list is checked as a graph; tasks in a removed stage ' +
      'make the update fail. `categorySchema`, `stages`, `pluginConfig` and `errorSchema` keep unknown properties.',
    status: 200,
    data: project,
    errors: [409],
  },
  'DELETE /v2/project/:projectId': {
    id: 'deleteProject',
    summary: 'Delete a project (soft delete)',
    status: 200,
    data: Type.Object({
      project: Type.Object({ _id: Type.String(), name: Type.String(), deleted: Type.Literal(true) }),
    }),
  },
  'POST /v2/project/:projectId/cloud': {
    id: 'importAssets',
    summary: 'Import assets from URLs; each becomes a task',
    description:
      'Every asset gets a task that enters the Start stage and moves on at once (Plugin and Webhook stages are ' +
      'called in the background). Batches are named by id or name.',
    status: 201,
    data: Type.Object({
      assetsCreated: Count('assets created'),
      assets: Type.Array(Type.Object({ _id: Type.String(), externalId: Type.String(), taskId: Type.String() })),
    }),
    errors: [409, 413],
  },
  'GET /v2/project/:projectId/assets': {
    id: 'listAssets',
    summary: 'List the assets of a project',
    status: 200,
    data: ListOf('assets', ref('Asset')),
  },
  'PUT /v2/asset/:assetId/size': {
    id: 'fillAssetSize',
    summary: "Fill an asset's missing width and height (an extension)",
    description:
      "The size the console's editor measured on decoding the image, kept in the asset's metadata when it has none; a size already there is never replaced (`filled: false`). Anyone who may read the project's tasks may send it.",
    status: 200,
    data: Type.Object({ filled: Type.Boolean(), metadata: Type.Record(Type.String(), Type.Unknown()) }),
  },
  'DELETE /v2/project/:projectId/assets': {
    id: 'deleteAssets',
    summary: 'Delete assets and their tasks (soft delete)',
    status: 200,
    data: Type.Object({ deletedCount: Count('assets deleted') }),
  },
  'GET /v2/batches/:projectId': {
    id: 'listBatches',
    summary: 'List the batches of a project',
    status: 200,
    data: ListOf('batches', ref('Batch')),
  },
  'POST /v2/batches/:projectId': {
    id: 'createBatch',
    summary: 'Create batches',
    description: 'Answers every batch of the project, the new ones included.',
    status: 201,
    data: ListOf('batches', ref('Batch')),
  },
  'POST /v2/assignBatches': {
    id: 'assignBatches',
    summary: 'Add assets to batches',
    status: 200,
    data: Type.Object({ assets: Count('assets changed'), batches: Type.Array(ref('Batch')) }),
  },
  'GET /v2/task/:taskId': { id: 'getTask', summary: 'Get a task with its answer', status: 200, data: task },
  'GET /v2/project/:projectId/tasks': {
    id: 'listTasks',
    summary: 'List the tasks of a project',
    description: '`fields` keeps only the named properties of each task; `includeAnswer=true` adds the answers.',
    status: 200,
    data: ListOf('tasks', ref('TaskListItem')),
  },
  'GET /v2/task/:taskId/history': {
    id: 'getTaskHistory',
    summary: 'The stages a task went through, oldest first',
    status: 200,
    data: history,
  },
  'GET /v2/taskHistory/:id': {
    id: 'getTaskHistoryEntry',
    summary: 'One entry of a task history, or the history of a task',
    description: 'A history entry id answers that entry; a task id answers the whole history, as getTaskHistory.',
    status: 200,
    data: Type.Union([Type.Object({ taskHistory: ref('TaskHistoryEntry') }), history]),
  },
  'GET /v2/annotate/:taskId': {
    id: 'annotateTask',
    summary: 'Replace the answer of a task (GET with a body, as the contract names it)',
    description:
      'Replaces the annotations whatever the stage. `nextStage=true` also submits the task, moving it to ' +
      'the next stage. The same operation as POST.',
    status: 200,
    data: task,
  },
  'POST /v2/annotate/:taskId': {
    id: 'annotateTaskPost',
    summary: 'Replace the answer of a task',
    description: 'The same as the GET form, for clients that cannot send a body with GET.',
    status: 200,
    data: task,
  },
  'POST /v2/task/:taskId/brush': {
    id: 'uploadBrushLayer',
    summary: "Upload a task's brush layer (a PNG of the image's size)",
    description:
      'Stores the PNG body in the file store and answers a link to it; save it on the task with ' +
      '`brushDataUrl` on POST /annotate/{taskId}. Allowed to whoever may annotate the task.',
    status: 200,
    data: Type.Object({ brushDataUrl: Type.String({ description: 'signed read link of the stored layer' }) }),
  },
  'POST /v2/task/:taskId/medical-brush': {
    id: 'uploadVolumeLayer',
    summary: "Upload a task's voxel layer (a .seg.nrrd of the volume's size)",
    description:
      'Stores the NRRD body (3 dimensions of whole numbers, raw or gzip, the size of the volume in the ' +
      "asset's metadata: width, height, pageTotal) in the file store and answers a link to it; save it on " +
      'the task with `medicalBrushDataUrl` on POST /annotate/{taskId}. Allowed to whoever may annotate the task.',
    status: 200,
    data: Type.Object({
      medicalBrushDataUrl: Type.String({ description: 'signed read link of the stored layer' }),
    }),
  },
  'GET /v2/mask': {
    id: 'getObjectMask',
    summary: 'One segmentation or polygon object drawn alone as a PNG mask',
    description:
      "A PNG the size of the image (from the asset's metadata; else the object's extent), the object " +
      'opaque white on transparency. Readers of the task only: anyone else, and an unknown object, 404. ' +
      'The `masks` links of an export (`includeMask=true`) add `expires` and `signature` and need no API key ' +
      'until they expire (24 hours; 403 after, or when tampered with).',
    status: 200,
    data: Type.String({ format: 'binary' }),
    raw: { contentType: 'image/png' },
  },
  'POST /v2/review/:taskId': {
    id: 'reviewTask',
    summary: 'Accept or reject a task in a Review stage',
    description: 'Accepted moves the task to the first `next` stage, Rejected to the second.',
    status: 200,
    data: task,
    errors: [409],
  },
  'GET /v2/project/:projectId/next': {
    id: 'getNextTask',
    summary: 'Take the next task to work on',
    description: 'Assigns the task to you; `task` is null when no task waits in your stages.',
    status: 200,
    data: Type.Object({
      task: Nullable(ref('Task')),
      reason: Type.Optional(Type.String({ description: 'why no task: the benchmark cutoff stopped you' })),
    }),
  },
  'GET /v2/project/:projectId/queue': {
    id: 'getWorkQueue',
    summary: 'The stages you may take tasks from, with how many wait (an extension)',
    description:
      "Beyond the contract. One entry per Label or Review stage your role and the stage's `assignedTo` let you " +
      'take tasks from. `waiting` counts the tasks `/next` could hand you there now (the same predicate: free, ' +
      'and no consensus copy of an asset you already work), up to 1000; `waitingCapped` says there are more. ' +
      'Labelers get `waiting` only when the project has `queueCountsEnabled`; otherwise null. ' +
      "`assignedToYou` counts the stage's tasks you hold, which `/next` answers first.",
    status: 200,
    data: Type.Object({ stages: Type.Array(QueueStage) }),
  },
  'POST /v2/project/:projectId/benchmarks': {
    id: 'markBenchmarks',
    summary: 'Mark tasks as benchmarks with a reference answer (an extension)',
    description:
      'Managers only. The reference is the task\'s answer (`source` "answer", the default), the answer sent ' +
      '(`source` "given") or its imported pre-labels (`source` "prelabels"). One bad task answers 400 naming ' +
      '`tasks[i]` and nothing is marked.',
    status: 200,
    data: Type.Object({ benchmarks: Type.Array(Type.Record(Type.String(), Type.Unknown())) }),
  },
  'DELETE /v2/project/:projectId/benchmarks': {
    id: 'unmarkBenchmarks',
    summary: 'Unmark benchmarks; their references and scores are deleted (an extension)',
    status: 200,
    data: Type.Object({ benchmarks: Type.Array(Type.Record(Type.String(), Type.Unknown())) }),
  },
  'GET /v2/project/:projectId/benchmarks/:taskId': {
    id: 'getBenchmark',
    summary: "Read a benchmark's reference answer (an extension, Managers only)",
    status: 200,
    data: Type.Object({ benchmark: Type.Record(Type.String(), Type.Unknown()) }),
  },
  'POST /v2/project/:projectId/benchmarks/resume': {
    id: 'resumeBenchmarkLabeler',
    summary: 'Let a labeler stopped by the benchmark cutoff continue (an extension, Managers only)',
    status: 200,
    data: Type.Object({ labeler: Type.String(), resumedAt: Type.String() }),
  },
  'GET /v2/project/:projectId/benchmarkSubmissions': {
    id: 'listBenchmarkSubmissions',
    summary: 'Scored benchmark submissions, oldest first (an extension, Managers only)',
    status: 200,
    data: Type.Object({ submissions: Type.Array(Type.Record(Type.String(), Type.Unknown())) }),
  },
  'POST /v2/task/:taskId/skip': {
    id: 'skipTask',
    summary: 'Skip a task you hold in a Label stage (an extension)',
    description:
      'Beyond the contract, which has the `taskSkipEnabled` and `unassignSkippedTask` flags but no operation. ' +
      'The task stays in its stage; a history entry with `isSkipped: true` (trigger `skip`) records the skip. ' +
      'With `unassignSkippedTask` the task is unassigned. `/next` hands you other tasks of the stage first. ' +
      '400 when the project has skipping off, 403 when the task is not assigned to you, 409 outside a Label stage.',
    status: 200,
    data: task,
    errors: [409],
  },
  'POST /v2/task/:taskId/release': {
    id: 'releaseTask',
    summary: 'Give a task you hold back to its stage (an extension)',
    description:
      'Beyond the contract, whose `/task/assign` without `user` unassigns but is for Leads and Managers. The ' +
      'person the task is assigned to, in a Label or Review stage, unassigns it: answer, draft and time stay ' +
      'with the task and `/next` hands it to whoever asks next. With `updatedAt` it is released only while ' +
      'the task is unchanged since then. 403 when the task is not assigned to you, 409 when it changed since ' +
      '`updatedAt` or sits in another kind of stage.',
    status: 200,
    data: task,
    errors: [409],
  },
  'POST /v2/task/:taskId/take': {
    id: 'takeTask',
    summary: 'Take one named task of a stage you work (an extension)',
    description:
      'Beyond the contract. Assigns the task to you when `/next` could hand it to you (free, in a Label or ' +
      'Review stage you may take tasks from, no copy of the same consensus round yours). A task you already ' +
      'hold answers as it is with a new `updatedAt`. 409 when someone else holds it or it left the stage.',
    status: 200,
    data: task,
    errors: [409],
  },
  'GET /v2/task/:taskId/position': {
    id: 'getQueuePosition',
    summary: 'Where you stand in the stage of a task: "Task 3 of 12" (an extension)',
    description:
      'Beyond the contract. `done` counts the tasks you finished in the stage since `since` (their history ' +
      'entries: submit, accept, reject, skip); `position` is `done` + 1; `held` counts your other tasks of ' +
      'the stage, `waiting` the free ones `/next` could hand you (null for a Labeler when the project hides ' +
      'counts); `total` is `position` + `held` + `waiting`. Each count stops at 1000 (`capped`).',
    status: 200,
    data: QueuePosition,
    errors: [409],
  },
  'POST /v2/task/assign': {
    id: 'assignTasks',
    summary: 'Assign tasks of a stage to a user (or unassign them)',
    status: 200,
    data: Type.Object({ modifiedCount: moved('assigned'), assignee: Nullable(Type.String()) }),
  },
  'POST /v2/project/:projectId/forward': {
    id: 'forwardTasks',
    summary: 'Forward the tasks waiting in a Start or Hold stage',
    status: 200,
    data: Type.Object({ forwarded: moved('forwarded'), stageId: Type.String() }),
  },
  'POST /v2/project/:projectId/requeueTasks': {
    id: 'requeueTasks',
    summary: 'Move tasks to a stage',
    description: 'Tasks chosen by `filters` move to `toStageId`; `options` clear annotations, assignee or history.',
    status: 200,
    data: Type.Object({
      modifiedCount: Type.Object({ modified: moved('moved'), toStageId: Type.String() }),
    }),
  },
  'POST /v2/project/:projectId/updatePriority': {
    id: 'updateTaskPriority',
    summary: 'Set the priority of tasks',
    status: 200,
    data: Type.Object({ modifiedCount: moved('changed'), priority: Type.Integer() }),
  },
  'POST /v2/import/labels': {
    id: 'importLabels',
    summary: 'Write pre-labels onto tasks still in the Start stage',
    description: 'Tasks outside Start are reported in `skipped`, not changed.',
    status: 200,
    data: Type.Object({
      imported: Count('tasks pre-labelled'),
      skipped: Type.Array(
        Type.Object({
          index: Type.Integer(),
          assetId: Type.Optional(Type.String()),
          externalId: Type.Optional(Type.String()),
          reason: Type.String(),
          message: Type.String(),
        }),
      ),
    }),
  },
};
