import { type ComponentType, lazy } from 'react';
import { createBrowserRouter, matchPath, matchRoutes, Navigate, type RouteObject, RouterProvider } from 'react-router';
import { queryClient } from './api/query-client';
import { AccountPage } from './auth/AccountPage';
import { RequireSession } from './auth/RequireSession';
import { SetPasswordPage } from './auth/SetPasswordPage';
import { SignInPage } from './auth/SignInPage';
import { sessionQuery } from './auth/useSession';
import { Layout } from './components/Layout';
import { ProjectLanding, ProjectLayout } from './components/ProjectLayout';
import { prefetchWorkTask } from './work/prefetch';

type PageModule = { default: ComponentType };
type Loader = () => Promise<PageModule>;

/**
 * Each page is its own chunk: the first load carries the shell and the page it opens, no more.
 * The route's handle keeps the loader, so the page being opened can start loading at once. A
 * page whose chunk has arrived draws in the same render as the shell around it: a lazy
 * component would suspend once even then, and React holds a revealed fallback back for up to
 * 300 ms (its reveal throttle), which the first load paid in full.
 */
type PageRoute = Pick<RouteObject, 'element'> & { handle: { preload: Loader } };

function page(load: Loader): PageRoute {
  let loaded: ComponentType | undefined;
  const preload = () =>
    load().then((module) => {
      loaded = module.default;
      return module;
    });
  const Lazy = lazy(preload);
  function Page() {
    const Loaded = loaded;
    return Loaded ? <Loaded /> : <Lazy />;
  }
  return { element: <Page />, handle: { preload } };
}

/** A redirect whose target page starts loading with it. */
function redirect(to: string, target: PageRoute): Pick<RouteObject, 'element' | 'handle'> {
  return { element: <Navigate to={to} replace />, handle: target.handle };
}

const projects = page(() => import('./pages/projects/ProjectListPage'));
const workflow = page(() => import('./pages/workflow/WorkflowPage'));

const routes: RouteObject[] = [
  // Sign-in pages (web/src/auth): reachable without a session.
  { path: '/signin', element: <SignInPage /> },
  { path: '/password/:token', element: <SetPasswordPage /> },
  { path: '/invite/:token', element: <SetPasswordPage /> },
  {
    element: (
      <RequireSession>
        <Layout />
      </RequireSession>
    ),
    children: [
      { path: '/', ...redirect('/projects', projects) },
      { path: '/projects', ...projects },
      {
        path: '/projects/:projectId',
        element: <ProjectLayout />,
        children: [
          { index: true, element: <ProjectLanding /> },
          { path: 'setup', ...page(() => import('./pages/projects/SetupPage')) },
          { path: 'work', ...page(() => import('./pages/projects/ProjectWorkPage')) },
          { path: 'workflow', ...workflow },
          { path: 'ontology', ...page(() => import('./pages/ontology/OntologyPage')) },
          { path: 'tasks', ...page(() => import('./pages/tasks/TasksPage')) },
          { path: 'tasks/:taskId', ...page(() => import('./pages/tasks/TaskPage')) },
          { path: 'assets', ...page(() => import('./pages/assets/AssetsPage')) },
          { path: 'overview', ...page(() => import('./pages/overview/OverviewPage')) },
          { path: 'quality', ...page(() => import('./pages/quality/QualityPage')) },
          { path: 'exports', ...page(() => import('./pages/exports/ExportsPage')) },
          { path: 'settings', ...page(() => import('./pages/projects/ProjectSettingsPage')) },
        ],
      },
      { path: '/work', ...page(() => import('./work/WorkQueuePage')) },
      { path: '/work/tasks/:taskId', ...page(() => import('./work/TaskPage')) },
      { path: '/org', ...page(() => import('./pages/org/OrgPage')) },
      { path: '/account', element: <AccountPage /> },
      { path: '*', ...page(() => import('./pages/NotFoundPage')) },
    ],
  },
];

// The page being opened starts loading beside the session check (RequireSession), not after it,
// and the session check starts now rather than at the first render: the two round trips overlap
// the shell's own start-up.
void queryClient.prefetchQuery(sessionQuery);
for (const match of matchRoutes(routes, window.location) ?? []) {
  const preload = (match.route.handle as { preload?: Loader } | undefined)?.preload;
  // A failed fetch is left to the page's own lazy load, which shows it.
  preload?.().catch(() => undefined);
}
// The editor: its task, project and image start here too, not once its chunk has rendered.
const editing = matchPath('/work/tasks/:taskId', window.location.pathname);
if (editing) prefetchWorkTask(editing.params.taskId, new URLSearchParams(window.location.search));

const router = createBrowserRouter(routes);

/** The console: the router over the shell; sign-in pages join from web/src/auth/. */
export function App() {
  return <RouterProvider router={router} />;
}
