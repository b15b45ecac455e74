import { type KeyboardEvent, useRef } from 'react';
import { useSearchParams } from 'react-router';
import { useSession } from '../../auth/useSession';
import { Loading } from '../../components/States';
import { ApiKeyTab } from './ApiKeyTab';
import { AuditTab } from './AuditTab';
import { MembersTab } from './MembersTab';
import { PluginsTab } from './PluginsTab';
import { SignInTab } from './SignInTab';
import { StoragesTab } from './StoragesTab';
import './org.css';

const TABS = [
  ['members', 'Members'],
  ['storages', 'Storages'],
  ['plugins', 'Plugins'],
  ['audit', 'Audit'],
  ['sign-in', 'Sign-in'],
  ['api-key', 'Your API key'],
] as const;
type Tab = (typeof TABS)[number][0];

/** /org: the organization's members and invites, storages, plugins, audit log, sign-in settings, and the person's own API key. */
export default function OrgPage() {
  const session = useSession();
  const [params, setParams] = useSearchParams();
  const tabRefs = useRef<(HTMLButtonElement | null)[]>([]);
  if (!session.data) return <Loading what="your session" />;
  const me = session.data;
  const isAdmin = me.organizationRole === 'owner' || me.organizationRole === 'admin';
  // Members, invites, the audit log and sign-in settings are the owner's and admins': not offered to members.
  const tabs = isAdmin ? TABS : TABS.filter(([id]) => id !== 'members' && id !== 'audit' && id !== 'sign-in');
  const current: Tab = tabs.find(([id]) => id === params.get('tab'))?.[0] ?? tabs[0]![0];
  const choose = (tab: Tab) => setParams({ tab }, { replace: true });
  // Arrow keys move between tabs (the WAI-ARIA tabs pattern); Tab goes on into the panel.
  const onKey = (e: KeyboardEvent, i: number) => {
    const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    const next = (i + step + tabs.length) % tabs.length;
    choose(tabs[next]![0]);
    tabRefs.current[next]?.focus();
  };
  return (
    <div className="org-page">
      <h1>Organization: {me.organization.name}</h1>
      <p className="muted">
        You are{' '}
        {me.organizationRole === 'owner' ? 'the owner' : me.organizationRole === 'admin' ? 'an admin' : 'a member'} of
        this organization (plan {me.organization.plan}).
      </p>
      <div role="tablist" aria-label="Organization" className="tabs">
        {tabs.map(([id, label], i) => (
          <button
            key={id}
            ref={(el) => {
              tabRefs.current[i] = el;
            }}
            type="button"
            role="tab"
            id={`tab-${id}`}
            aria-selected={current === id}
            aria-controls={`panel-${id}`}
            tabIndex={current === id ? 0 : -1}
            onClick={() => choose(id)}
            onKeyDown={(e) => onKey(e, i)}
          >
            {label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${current}`} aria-labelledby={`tab-${current}`} className="tab-panel">
        {current === 'members' && <MembersTab orgId={me.organization._id} me={me.user.email} />}
        {current === 'storages' && <StoragesTab isAdmin={isAdmin} />}
        {current === 'plugins' && <PluginsTab isAdmin={isAdmin} />}
        {current === 'audit' && <AuditTab orgId={me.organization._id} />}
        {current === 'sign-in' && <SignInTab orgId={me.organization._id} />}
        {current === 'api-key' && <ApiKeyTab email={me.user.email} />}
      </div>
    </div>
  );
}
