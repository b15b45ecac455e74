import { AnnotaryConfigError, resolveConnection, type Deployment } from './deployments.js';
import { paginate } from './paginate.js';
import type { Env } from './profile.js';
import type { RetryOptions } from './retry.js';
import { Transport } from './transport.js';
import type { ApiBody, ApiData, ApiQuery, ListItem, ListQuery, Paths } from './types.js';

export interface AnnotaryOptions {
  /** Default: `ANNOTARY_API_KEY`, else the key `annotary login` stored for the deployment. */
  apiKey?: string;
  /** `eu` (default), `us`, `india` or `test`. */
  deployment?: Deployment | (string & {});
  /** Wins over the deployment's address; ends in `/v2`. */
  baseUrl?: string;
  retry?: RetryOptions;
  /** The fetch under the retries (default: the global fetch). */
  fetch?: (req: Request) => Promise<Response>;
  /** Where the environment is read (default: process.env). */
  env?: Env;
  userAgent?: string;
}

type Page<P extends keyof Paths> = Promise<ApiData<P, 'get'>>;
type Items<P extends keyof Paths, K extends string> = AsyncGenerator<ListItem<P, 'get', K>, void, undefined>;

/** Largest `limit` each list accepts: iterators ask for full pages. */
const PAGE = { projects: 1000, tasks: 1000, assets: 1000, storages: 100, issues: 100, plugins: 100 };

/**
 * The Annotary REST API v2. Convenience methods answer the envelope's `data` and throw
 * AnnotaryError; `api` is the typed openapi-fetch client for every operation of the document.
 */
export class Annotary {
  readonly deployment: Deployment;
  readonly baseUrl: string;
  readonly api: Transport['api'];
  private readonly t: Transport;

  constructor(options: AnnotaryOptions = {}) {
    const conn = resolveConnection(options, options.env);
    if (!conn.apiKey) {
      throw new AnnotaryConfigError(
        `no API key for deployment "${conn.deployment}": pass apiKey, set ANNOTARY_API_KEY ` +
          `or run \`annotary login --deployment ${conn.deployment}\``,
      );
    }
    this.deployment = conn.deployment;
    this.baseUrl = conn.baseUrl;
    this.t = new Transport({ ...options, baseUrl: conn.baseUrl, apiKey: conn.apiKey });
    this.api = this.t.api;
  }

  readonly projects = {
    list: (query: ApiQuery<'/v2/listProjects', 'get'> = {}): Page<'/v2/listProjects'> =>
      this.t.unwrap('GET', '/v2/listProjects', this.api.GET('/v2/listProjects', { params: { query } })),
    iterate: (query: ListQuery<'/v2/listProjects'> = {}): Items<'/v2/listProjects', 'projects'> =>
      paginate(
        (page, limit) => this.projects.list({ ...query, page, limit }),
        'projects',
        query.limit ?? PAGE.projects,
      ),
    get: (projectId: string): Promise<ApiData<'/v2/project/{projectId}', 'get'>> =>
      this.t.unwrap(
        'GET',
        '/v2/project/{projectId}',
        this.api.GET('/v2/project/{projectId}', { params: { path: { projectId } } }),
      ),
    create: (body: ApiBody<'/v2/project', 'post'>): Promise<ApiData<'/v2/project', 'post'>> =>
      this.t.unwrap('POST', '/v2/project', this.api.POST('/v2/project', { body })),
    update: (projectId: string, body: ApiBody<'/v2/project/{projectId}', 'post'>) =>
      this.t.unwrap<ApiData<'/v2/project/{projectId}', 'post'>>(
        'POST',
        '/v2/project/{projectId}',
        this.api.POST('/v2/project/{projectId}', { params: { path: { projectId } }, body }),
      ),
    delete: (projectId: string): Promise<ApiData<'/v2/project/{projectId}', 'delete'>> =>
      this.t.unwrap(
        'DELETE',
        '/v2/project/{projectId}',
        this.api.DELETE('/v2/project/{projectId}', { params: { path: { projectId } } }),
      ),
  };

  readonly tasks = {
    list: (
      projectId: string,
      query: ApiQuery<'/v2/project/{projectId}/tasks', 'get'> = {},
    ): Page<'/v2/project/{projectId}/tasks'> =>
      this.t.unwrap(
        'GET',
        '/v2/project/{projectId}/tasks',
        this.api.GET('/v2/project/{projectId}/tasks', { params: { path: { projectId }, query } }),
      ),
    iterate: (
      projectId: string,
      query: ListQuery<'/v2/project/{projectId}/tasks'> = {},
    ): Items<'/v2/project/{projectId}/tasks', 'tasks'> =>
      paginate(
        (page, limit) => this.tasks.list(projectId, { ...query, page, limit }),
        'tasks',
        query.limit ?? PAGE.tasks,
      ),
    get: (taskId: string): Promise<ApiData<'/v2/task/{taskId}', 'get'>> =>
      this.t.unwrap('GET', '/v2/task/{taskId}', this.api.GET('/v2/task/{taskId}', { params: { path: { taskId } } })),
  };

  readonly assets = {
    /** All assets and their tasks, or none (409 on an externalId already in the project). */
    import: (
      projectId: string,
      body: ApiBody<'/v2/project/{projectId}/cloud', 'post'>,
      query: ApiQuery<'/v2/project/{projectId}/cloud', 'post'> = {},
    ): Promise<ApiData<'/v2/project/{projectId}/cloud', 'post'>> =>
      this.t.unwrap(
        'POST',
        '/v2/project/{projectId}/cloud',
        this.api.POST('/v2/project/{projectId}/cloud', { params: { path: { projectId }, query }, body }),
      ),
    list: (
      projectId: string,
      query: ApiQuery<'/v2/project/{projectId}/assets', 'get'> = {},
    ): Page<'/v2/project/{projectId}/assets'> =>
      this.t.unwrap(
        'GET',
        '/v2/project/{projectId}/assets',
        this.api.GET('/v2/project/{projectId}/assets', { params: { path: { projectId }, query } }),
      ),
    iterate: (
      projectId: string,
      query: ListQuery<'/v2/project/{projectId}/assets'> = {},
    ): Items<'/v2/project/{projectId}/assets', 'assets'> =>
      paginate(
        (page, limit) => this.assets.list(projectId, { ...query, page, limit }),
        'assets',
        query.limit ?? PAGE.assets,
      ),
  };

  readonly batches = {
    list: (projectId: string): Promise<ApiData<'/v2/batches/{projectId}', 'get'>> =>
      this.t.unwrap(
        'GET',
        '/v2/batches/{projectId}',
        this.api.GET('/v2/batches/{projectId}', { params: { path: { projectId } } }),
      ),
    create: (
      projectId: string,
      body: ApiBody<'/v2/batches/{projectId}', 'post'>,
    ): Promise<ApiData<'/v2/batches/{projectId}', 'post'>> =>
      this.t.unwrap(
        'POST',
        '/v2/batches/{projectId}',
        this.api.POST('/v2/batches/{projectId}', { params: { path: { projectId } }, body }),
      ),
  };

  readonly storages = {
    list: (query: ApiQuery<'/v2/storages', 'get'> = {}): Page<'/v2/storages'> =>
      this.t.unwrap('GET', '/v2/storages', this.api.GET('/v2/storages', { params: { query } })),
    iterate: (query: ListQuery<'/v2/storages'> = {}): Items<'/v2/storages', 'storages'> =>
      paginate(
        (page, limit) => this.storages.list({ ...query, page, limit }),
        'storages',
        query.limit ?? PAGE.storages,
      ),
    /** Every file under a folder of a bucket (recursively), as signed URLs or keys. */
    files: (
      storageId: string,
      query: ApiQuery<'/v2/storages/{storageId}/files', 'get'>,
    ): Page<'/v2/storages/{storageId}/files'> =>
      this.t.unwrap(
        'GET',
        '/v2/storages/{storageId}/files',
        this.api.GET('/v2/storages/{storageId}/files', { params: { path: { storageId }, query } }),
      ),
  };

  readonly issues = {
    iterate: (query: ListQuery<'/v2/issues'> = {}): Items<'/v2/issues', 'issues'> =>
      paginate(
        (page, limit) =>
          this.t.unwrap(
            'GET',
            '/v2/issues',
            this.api.GET('/v2/issues', { params: { query: { ...query, page, limit } } }),
          ),
        'issues',
        query.limit ?? PAGE.issues,
      ),
  };

  readonly plugins = {
    iterate: (query: ListQuery<'/v2/plugins'> = {}): Items<'/v2/plugins', 'plugins'> =>
      paginate(
        (page, limit) =>
          this.t.unwrap(
            'GET',
            '/v2/plugins',
            this.api.GET('/v2/plugins', { params: { query: { ...query, page, limit } } }),
          ),
        'plugins',
        query.limit ?? PAGE.plugins,
      ),
  };

  readonly metrics = {
    get: (projectId: string, metric: string): Promise<ApiData<'/v2/{projectId}/overview/{metric}', 'get'>> =>
      this.t.unwrap(
        'GET',
        '/v2/{projectId}/overview/{metric}',
        this.api.GET('/v2/{projectId}/overview/{metric}', { params: { path: { projectId, metric } } }),
      ),
  };

  readonly exports = {
    /** Writes the export and answers `{exportPath}`: a link that needs no key. */
    create: (query: ApiQuery<'/v2/exportV3', 'get'>): Promise<ApiData<'/v2/exportV3', 'get'>> =>
      this.t.unwrap('GET', '/v2/exportV3', this.api.GET('/v2/exportV3', { params: { query } })),
    /** The zip behind an export link, as a streaming Response (the API key is not sent). */
    download: (exportPath: string): Promise<Response> => this.t.send('GET', exportPath, {}, false),
  };

  readonly files = {
    uploadUrl: (query: ApiQuery<'/v2/getUploadUrl', 'get'>): Promise<ApiData<'/v2/getUploadUrl', 'get'>> =>
      this.t.unwrap('GET', '/v2/getUploadUrl', this.api.GET('/v2/getUploadUrl', { params: { query } })),
    /** PUTs bytes to a signed upload URL (the URL is the credential: no key goes with it). */
    put: (
      uploadUrl: string,
      body: NonNullable<RequestInit['body']>,
      contentType = 'application/octet-stream',
    ): Promise<unknown> => this.t.sendJson('PUT', uploadUrl, { body, headers: { 'content-type': contentType } }, false),
    /** Uploads the project's instructions (multipart `file`). */
    uploadInstructions: (
      projectId: string,
      file: Blob,
      fileName: string,
      query: ApiQuery<'/v2/project/{projectId}/instructions', 'post'> = {},
    ): Promise<unknown> => {
      const form = new FormData();
      form.append('file', file, fileName);
      const search = new URLSearchParams(
        Object.entries(query).filter((e): e is [string, string] => typeof e[1] === 'string'),
      );
      const qs = search.size ? `?${search}` : '';
      return this.t.sendJson('POST', `/v2/project/${encodeURIComponent(projectId)}/instructions${qs}`, { body: form });
    },
    /**
     * Imports another tool's label file (COCO or Label Studio JSON, VOC or CVAT XML, or a dataset
     * zip) as pre-labels; answers the import's report.
     */
    importLabels: (
      projectId: string,
      format: 'coco' | 'yolo' | 'voc' | 'labelstudio' | 'cvat',
      body: NonNullable<RequestInit['body']>,
    ): Promise<unknown> =>
      this.t.sendJson(
        'POST',
        `/v2/project/${encodeURIComponent(projectId)}/import/labels?format=${encodeURIComponent(format)}`,
        { body, headers: { 'content-type': 'application/octet-stream' } },
      ),
  };
}
