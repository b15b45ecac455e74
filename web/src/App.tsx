import { Route, Routes } from 'react-router';
import { RequireSession } from './auth/RequireSession';
import { SignInPage } from './auth/SignInPage';
import { SignOutButton } from './auth/SignOutButton';

/** The console's shell: the pages arrive with the console issue; this is the frame they live in. */
function Shell() {
  return (
    <div className="shell">
      <header className="topbar">
        <a className="brand" href="/">
          Annotary
        </a>
        <SignOutButton />
      </header>
      <main className="page">
        <h1>Annotary console</h1>
        <p>Projects, workflows, tasks and exports of your organization.</p>
      </main>
    </div>
  );
}

export function App() {
  return (
    <Routes>
      {/* Sign-in pages (web/src/auth): reachable without a session. */}
      <Route path="/signin" element={<SignInPage />} />
      <Route
        path="*"
        element={
          <RequireSession>
            <Shell />
          </RequireSession>
        }
      />
    </Routes>
  );
}
