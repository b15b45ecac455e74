/**
 * The shape of the server, checked by `npm run check` (docs/architecture.md explains each rule).
 * Layers, top to bottom: http/ and cli/ -> services/ -> workflow/ and jobs/ -> store/ and
 * adapters/ (schemas/, errors, ids, config below all). An import points down or sideways within
 * its layer, never up, and no chain of imports comes back to where it started.
 */
/**
 * The service domains and the domains each calls, as their README.md says ("Calls: ..."). The
 * calls run one way, from a domain a user acts in towards the ones it builds on, so the list has
 * no circle. A piece two domains need that would make an arrow run back up goes below both
 * (src/access.ts, services/files/layers/, a repository), never into an exception here.
 */
const DOMAINS = {
  audit: [],
  backups: [],
  identity: ['audit'],
  storages: ['audit'],
  projects: ['identity', 'audit', 'storages'],
  files: ['identity', 'projects', 'storages'],
  assets: ['identity', 'audit', 'projects', 'files', 'storages'],
  tasks: ['identity', 'audit', 'projects', 'assets', 'files'],
  metrics: ['identity'],
  issues: ['identity', 'projects', 'tasks'],
  plugins: ['identity', 'audit', 'projects', 'tasks', 'files'],
  webhooks: ['identity', 'audit', 'projects', 'tasks', 'files'],
  quality: ['identity', 'audit', 'projects', 'issues', 'metrics'],
  stages: ['identity', 'projects', 'webhooks', 'plugins'],
  exports: ['identity', 'audit', 'projects', 'tasks', 'issues', 'storages', 'files'],
};

/** One rule per domain: its files import no other domain than the ones it calls. */
function domainRules() {
  const rules = [
    {
      name: 'domain-declared',
      severity: 'error',
      comment: 'A new folder of services/ is a domain: declare it in DOMAINS with what it calls.',
      from: { path: '^src/services/[^/]+/', pathNot: `^src/services/(${Object.keys(DOMAINS).join('|')})/` },
      to: {},
    },
  ];
  for (const [domain, calls] of Object.entries(DOMAINS)) {
    rules.push({
      name: `domain-${domain}-calls`,
      severity: 'error',
      comment:
        `services/${domain}/ calls only ${calls.length ? calls.join(', ') : 'no other domain'} ` +
        `(its README.md and DOMAINS in .dependency-cruiser.cjs).`,
      from: { path: `^src/services/${domain}/` },
      to: { path: '^src/services/[^/]+/', pathNot: `^src/services/(${[domain, ...calls].join('|')})/` },
    });
  }
  return rules;
}
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No module imports itself back through any chain, type-only imports included: move the shared ' +
        'part into a module below both.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'store-adapters-stay-below',
      severity: 'error',
      comment:
        'store/ and adapters/ are the floor: they know rows and outside systems, never workflow rules ' +
        'or services (a job kind comes from jobs/kinds.ts).',
      from: { path: '^src/(store|adapters)/' },
      to: { path: '^src/(services|workflow|http|cli)/|^src/(server|job-handlers)\\.ts$' },
    },
    {
      name: 'context-stays-below-services',
      severity: 'error',
      comment:
        'src/context.ts opens the store, clock, logger, counters and key that services are given; it ' +
        'imports no service (what a process builds from services, such as the API-key cache and the ' +
        'upgrade steps, is added where the process is assembled: http/app.ts, server.ts, cli/).',
      from: { path: '^src/context\\.ts$' },
      to: { path: '^src/(services|workflow|jobs|http|cli)/|^src/(server|job-handlers|upgrades)\\.ts$' },
    },
    {
      name: 'access-stays-below-domains',
      severity: 'error',
      comment:
        'src/access.ts (the caller, the roles and what each may do) is read by every domain, audit and ' +
        'identity included, so it stands below them all: it imports only errors and schemas.',
      from: { path: '^src/access\\.ts$' },
      to: { path: '^src/', pathNot: '^src/(errors\\.ts$|schemas/)' },
    },
    {
      name: 'jobs-stay-below-services',
      severity: 'error',
      comment:
        'jobs/ is the queue and the worker; services queue jobs, so jobs/ never imports a service. ' +
        'Handlers are wired in src/job-handlers.ts, where the process is assembled.',
      from: { path: '^src/jobs/' },
      to: { path: '^src/(services|workflow|http|cli)/|^src/(server|job-handlers)\\.ts$' },
    },
    {
      name: 'workflow-stays-below-services',
      severity: 'error',
      comment: 'workflow/ holds the routing rules; services call it, it never calls them.',
      from: { path: '^src/workflow/' },
      to: { path: '^src/(services|http|cli)/|^src/(server|job-handlers)\\.ts$' },
    },
    {
      name: 'services-stay-below-http',
      severity: 'error',
      comment: 'services/ answer http/ and cli/; they never import a route, a plugin or the app.',
      from: { path: '^src/services/' },
      to: { path: '^src/(http|cli)/|^src/(server|job-handlers)\\.ts$' },
    },
    {
      name: 'client-stands-alone',
      severity: 'error',
      comment:
        'src/client/ ships as `annotary/client`: it imports nothing of the server, only its own files and ' +
        'its libraries (its types come from the generated schema.d.ts).',
      from: { path: '^src/client/' },
      to: { path: '^src/', pathNot: '^src/client/' },
    },
    {
      name: 'cli-user-commands-use-the-api',
      severity: 'error',
      comment:
        'The daily-work commands call the API through the client; only serve/worker and the admin ' +
        'commands (serve.ts, admin-actions.ts, backup.ts) open the store and the services.',
      from: { path: '^src/cli/', pathNot: '^src/cli/(serve|admin-actions|backup)\\.ts$' },
      to: { path: '^src/(services|store|http|workflow|jobs|adapters)/|^src/(server|context|job-handlers)\\.ts$' },
    },
    ...domainRules(),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a circle of types is still two modules that cannot be read apart.
    tsPreCompilationDeps: true,
    // Resolves the `.js` suffixes of our NodeNext imports to the `.ts` sources.
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json'],
    },
  },
};
