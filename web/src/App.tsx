import { type ComponentType, lazy } from 'react';
import { createBrowserRouter, matchRoutes, Navigate, type RouteObject, RouterProvider } from 'react-router';
import { AccountPage } from './auth/AccountPage';
import { RequireSession } from './auth/RequireSession';
import { SetPasswordPage } from './auth/SetPasswordPage';
import { SignInPage } from './auth/SignInPage';
import { Layout } from './components/Layout';
import { ProjectLayout } from './components/ProjectLayout';

type PageModule = { default: ComponentType };
type Loader = () => Promise<PageModule>;

/**
 * Each page is its own chunk: the first load carries the shell and the page it opens, no more.
 * The route's handle keeps the loader, so the page being opened can start loading at once.
 */
function page(load: Loader): Pick<RouteObject, 'element' | 'handle'> {
  const Page = lazy(load);
  return { element: <Page />, handle: { preload: load } };
}

/** A redirect whose target page starts loading with it. */
function redirect(to: string, load: Loader): Pick<RouteObject, 'element' | 'handle'> {
  return { element: <Navigate to={to} replace />, handle: { preload: load } };
}

const projects: Loader = () => import('./pages/projects/ProjectListPage');
const workflow: Loader = () => import('./pages/workflow/WorkflowPage');

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
      { path: '/projects', ...page(projects) },
      {
        path: '/projects/:projectId',
        element: <ProjectLayout />,
        children: [
          { index: true, ...redirect('workflow', workflow) },
          { path: 'workflow', ...page(workflow) },
          { path: 'ontology', ...page(() => import('./pages/ontology/OntologyPage')) },
          { path: 'tasks', ...page(() => import('./pages/tasks/TasksPage')) },
          { path: 'tasks/:taskId', ...page(() => import('./pages/tasks/TaskPage')) },
          { path: 'assets', ...page(() => import('./pages/assets/AssetsPage')) },
          { path: 'overview', ...page(() => import('./pages/overview/OverviewPage')) },
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

// The page being opened starts loading beside the session check (RequireSession), not after it:
// one round trip less before a first load draws.
for (const match of matchRoutes(routes, window.location) ?? []) {
  const preload = (match.route.handle as { preload?: Loader } | undefined)?.preload;
  // A failed fetch is left to the page's own lazy load, which shows it.
  preload?.().catch(() => undefined);
}

const router = createBrowserRouter(routes);

/** The console: the router over the shell; sign-in pages join from web/src/auth/. */
export function App() {
  return <RouterProvider router={router} />;
}
