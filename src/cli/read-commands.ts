import type { ApiQuery } from '../client/index.js';
import { type ApiOptions, connect } from './connect.js';
import { asRecord, printFields, printJson, printTable } from './output.js';

export async function listProjects(o: ApiOptions & { page: number; limit: number; sort: string }): Promise<void> {
  const client = connect(o);
  const sort = o.sort as NonNullable<Parameters<typeof client.projects.list>[0]>['sort'];
  const data = asRecord(await client.projects.list({ page: o.page, limit: o.limit, sort }));
  if (o.json) return printJson(data);
  const projects = Array.isArray(data.projects) ? data.projects : [];
  printTable(projects, ['_id', 'name', 'createdAt', 'description']);
  process.stdout.write(`${projects.length} of ${String(data.total)} projects (page ${o.page})\n`);
}

export async function getProject(projectId: string, o: ApiOptions): Promise<void> {
  const project = asRecord(asRecord(await connect(o).projects.get(projectId)).project);
  if (o.json) return printJson(project);
  printFields(project, ['_id', 'name', 'description', 'createdAt', 'updatedAt', 'instructions']);
  const stages = Array.isArray(project.stages) ? project.stages : [];
  process.stdout.write('\nstages\n');
  printTable(stages, ['id', 'name', 'type', 'next']);
}

export async function createProject(o: ApiOptions & { name: string; description?: string }): Promise<void> {
  const body = { name: o.name, ...(o.description ? { description: o.description } : {}) };
  const project = asRecord(asRecord(await connect(o).projects.create(body)).project);
  if (o.json) return printJson(project);
  printFields(project, ['_id', 'name', 'description', 'createdAt']);
}

type TaskQuery = ApiQuery<'/v2/project/{projectId}/tasks', 'get'>;

interface TaskListOptions extends ApiOptions {
  page: number;
  limit: number;
  status?: string;
  stage?: string[];
  batches?: string[];
  filter?: string;
  sort?: string;
  fields?: string;
  includeAnswer?: boolean;
}

export async function listTasks(projectId: string, o: TaskListOptions): Promise<void> {
  const query = {
    page: o.page,
    limit: o.limit,
    ...(o.status ? { 'status[eq]': o.status as TaskQuery['status[eq]'] } : {}),
    ...(o.stage ? { stage: JSON.stringify(o.stage) } : {}),
    ...(o.batches ? { batches: JSON.stringify(o.batches) } : {}),
    ...(o.filter ? { filter: o.filter } : {}),
    ...(o.sort ? { sort: o.sort } : {}),
    ...(o.fields ? { fields: o.fields } : {}),
    ...(o.includeAnswer ? { includeAnswer: 'true' } : {}),
  };
  const data = asRecord(await connect(o).tasks.list(projectId, query));
  if (o.json) return printJson(data);
  const tasks = Array.isArray(data.tasks) ? data.tasks : [];
  printTable(tasks, ['_id', 'externalId', 'stageName', 'status', 'assignee', 'priority', 'updatedAt']);
  process.stdout.write(`${tasks.length} of ${String(data.total)} tasks (page ${o.page})\n`);
}

export async function metric(projectId: string, name: string, o: ApiOptions): Promise<void> {
  const data = await connect(o).metrics.get(projectId, name);
  if (o.json) return printJson(data);
  for (const [key, value] of Object.entries(asRecord(data))) {
    process.stdout.write(`${key}\n`);
    if (Array.isArray(value)) printTable(value, [...new Set(value.flatMap((v) => Object.keys(asRecord(v))))]);
    else if (typeof value === 'object' && value !== null) printFields(value);
    else process.stdout.write(`${String(value)}\n`);
  }
}
