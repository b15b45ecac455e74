import { lazy } from 'react';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { AccountPage } from './auth/AccountPage';
import { RequireSession } from './auth/RequireSession';
import { SetPasswordPage } from './auth/SetPasswordPage';
import { SignInPage } from './auth/SignInPage';
import { Layout } from './components/Layout';
import { ProjectLayout } from './components/ProjectLayout';

// Each page is its own chunk: the first load carries the shell and the page it opens, no more.
const ProjectListPage = lazy(() => import('./pages/projects/ProjectListPage'));
const ProjectSettingsPage = lazy(() => import('./pages/projects/ProjectSettingsPage'));
const WorkflowPage = lazy(() => import('./pages/workflow/WorkflowPage'));
const AssetsPage = lazy(() => import('./pages/assets/AssetsPage'));
const TasksPage = lazy(() => import('./pages/tasks/TasksPage'));
const TaskPage = lazy(() => import('./pages/tasks/TaskPage'));
const OverviewPage = lazy(() => import('./pages/overview/OverviewPage'));
const OntologyPage = lazy(() => import('./pages/ontology/OntologyPage'));
const ExportsPage = lazy(() => import('./pages/exports/ExportsPage'));
const OrgPage = lazy(() => import('./pages/org/OrgPage'));
const WorkQueuePage = lazy(() => import('./work/WorkQueuePage'));
const WorkTaskPage = lazy(() => import('./work/TaskPage'));
const NotFoundPage = lazy(() => import('./pages/NotFoundPage'));

const router = createBrowserRouter([
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
      { path: '/', element: <Navigate to="/projects" replace /> },
      { path: '/projects', element: <ProjectListPage /> },
      {
        path: '/projects/:projectId',
        element: <ProjectLayout />,
        children: [
          { index: true, element: <Navigate to="workflow" replace /> },
          { path: 'workflow', element: <WorkflowPage /> },
          { path: 'ontology', element: <OntologyPage /> },
          { path: 'tasks', element: <TasksPage /> },
          { path: 'tasks/:taskId', element: <TaskPage /> },
          { path: 'assets', element: <AssetsPage /> },
          { path: 'overview', element: <OverviewPage /> },
          { path: 'exports', element: <ExportsPage /> },
          { path: 'settings', element: <ProjectSettingsPage /> },
        ],
      },
      { path: '/work', element: <WorkQueuePage /> },
      { path: '/work/tasks/:taskId', element: <WorkTaskPage /> },
      { path: '/org', element: <OrgPage /> },
      { path: '/account', element: <AccountPage /> },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
]);

/** The console: the router over the shell; sign-in pages join from web/src/auth/. */
export function App() {
  return <RouterProvider router={router} />;
}
