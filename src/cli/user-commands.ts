import { type Command, Option } from 'commander';
import { commaList, intInRange, positiveInt } from './args.js';

/** Each command's module loads when it runs (the client, csv-parse, cli-progress, yauzl...). */
const load = {
  login: () => import('./login.js'),
  read: () => import('./read-commands.js'),
  import: () => import('./import.js'),
  export: () => import('./export.js'),
  importLabels: () => import('./import-labels.js'),
};

function api(cmd: Command): Command {
  return cmd
    .option('-d, --deployment <name>', 'eu (default), us, india or test')
    .option('--url <url>', 'base address of the API, ending in /v2 (wins over the deployment and ANNOTARY_URL_*)')
    .option('--json', 'print JSON for scripts instead of tables');
}

export function registerUserCommands(program: Command): void {
  api(program.command('login'))
    .description('store an API key for a deployment in the profile file (~/.config/annotary/config.json, mode 600)')
    .option('--key <key>', 'the API key (default: asked on a terminal, else read from standard input)')
    .action(async (o) => (await load.login()).login(o));

  const projects = program.command('projects').description('list, read and create projects');
  api(projects.command('list'))
    .description('one page of projects (newest first)')
    .option('--page <n>', 'page number', positiveInt, 1)
    .option('--limit <n>', 'projects per page (1-1000)', intInRange(1, 1000), 50)
    .option('--sort <field>', 'createdAt, updatedAt or name; - for descending', '-createdAt')
    .action(async (o) => (await load.read()).listProjects(o));
  api(projects.command('get <projectId>'))
    .description('one project: its settings, stages and ontology')
    .action(async (id, o) => (await load.read()).getProject(id, o));
  api(projects.command('create'))
    .description('a new project (workflow Start -> Label -> Complete)')
    .requiredOption('--name <name>', 'its name')
    .option('--description <text>', 'a description')
    .action(async (o) => (await load.read()).createProject(o));

  const tasks = program.command('tasks').description("a project's tasks");
  api(tasks.command('list <projectId>'))
    .description('one page of tasks, filtered and sorted as GET /project/{id}/tasks')
    .option('--page <n>', 'page number', positiveInt, 1)
    .option('--limit <n>', 'tasks per page (1-1000)', intInRange(1, 1000), 50)
    .addOption(new Option('--status <status>', 'task status').choices(['TODO', 'Completed', 'Archived']))
    .option('--stage <ids>', 'stage ids (comma-separated)', commaList)
    .option('--batches <ids>', 'batch ids (comma-separated)', commaList)
    .option('--filter <json>', 'the filter JSON, e.g. \'{"priority": {"$gte": 5}}\'')
    .option(
      '--sort <field>',
      'createdAt (default -createdAt), updatedAt, priority, externalId, status, stage, completedAt',
    )
    .option('--fields <list>', 'comma-separated task fields to return')
    .option('--include-answer', "add each task's answer")
    .action(async (id, o) => (await load.read()).listTasks(id, o));

  api(program.command('metrics <projectId> <metric>'))
    .description(
      'an overview metric: LabelStageGroups, TimePerTask, AnnotationStatus, AnswerDistribution, ConsensusRanges or AssetSize',
    )
    .action(async (id, metric, o) => (await load.read()).metric(id, metric, o));

  api(program.command('import <projectId> [file]'))
    .description(
      'import assets from a CSV, JSON or NDJSON file (URL in `data` or `url`; optional externalId, batches, ' +
        'metadata), or from a storage folder; re-running skips the externalIds already in the project',
    )
    .option('--storage <storageId>', 'import every file of a storage folder instead of a file')
    .option('--bucket <name>', 'the bucket (with --storage)')
    .option('--path <folder>', 'the folder, listed recursively (with --storage)', '')
    .addOption(
      new Option('--format <format>', 'the file format (default: from the extension)').choices([
        'csv',
        'json',
        'ndjson',
      ]),
    )
    .option(
      '--batches <names>',
      'batch names (comma-separated) for every asset; missing batches are created',
      commaList,
    )
    .option('--priority <n>', 'priority of the new tasks (-1000 to 1000)', intInRange(-1000, 1000))
    .option('--chunk <n>', 'assets per request (at most 50,000)', intInRange(1, 50_000), 10_000)
    .action(async (id, file, o) => (await load.import()).importAssets(id, file, o));

  api(program.command('import-labels <projectId> <file>'))
    .description(
      "import another tool's labels as pre-labels of the tasks in the Start stage: a COCO or Label Studio " +
        'JSON file, a Pascal VOC or CVAT XML file, or a zip of a dataset folder (YOLO, VOC, COCO)',
    )
    .addOption(
      new Option('--format <format>', 'the file format')
        .choices(['coco', 'yolo', 'voc', 'labelstudio', 'cvat'])
        .makeOptionMandatory(),
    )
    .action(async (id, file, o) => (await load.importLabels()).importLabels(id, file, o));

  api(program.command('export <projectId>'))
    .description('export tasks (or issues) to a .zip, .json or .ndjson file')
    .requiredOption(
      '-o, --output <file>',
      'out.zip (the zip as the API gives it), out.json or out.ndjson (its one entry)',
    )
    .addOption(new Option('--type <type>', 'what to export').choices(['task', 'issue']).default('task'))
    .addOption(new Option('--format <format>', 'entry format inside a .zip').choices(['json', 'ndjson']))
    .option('--stage <names>', 'stage ids or names (comma-separated)', commaList)
    .option('--batches <names>', 'batch ids or names (comma-separated)', commaList)
    .option('--status <status>', 'tasks: TODO, Completed, Archived; issues: Open, Resolved')
    .option('--created-after <date>', 'ISO date')
    .option('--created-before <date>', 'ISO date')
    .option('--updated-after <date>', 'ISO date')
    .option('--updated-before <date>', 'ISO date')
    .option('--no-history', "leave out each task's stage history")
    .option('--no-metadata', "leave out each asset's metadata")
    .action(async (id, o) => (await load.export()).exportProject(id, o));
}
