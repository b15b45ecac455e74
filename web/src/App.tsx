import { Link, Route, Routes } from 'react-router';
import { AccountPage } from './auth/AccountPage';
import { RequireSession } from './auth/RequireSession';
import { SetPasswordPage } from './auth/SetPasswordPage';
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
        <nav aria-label="Console">
          <Link to="/account">Account</Link>
        </nav>
        <SignOutButton />
      </header>
      <main className="page">
        <Routes>
          <Route path="/account" element={<AccountPage />} />
          <Route
            path="*"
            element={
              <>
                <h1>Annotary console</h1>
                <p>Projects, workflows, tasks and exports of your organization.</p>
              </>
            }
          />
        </Routes>
      </main>
    </div>
  );
}

export function App() {
  return (
    <Routes>
      {/* Sign-in pages (web/src/auth): reachable without a session. */}
      <Route path="/signin" element={<SignInPage />} />
      <Route path="/password/:token" element={<SetPasswordPage />} />
      <Route path="/invite/:token" element={<SetPasswordPage />} />
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
