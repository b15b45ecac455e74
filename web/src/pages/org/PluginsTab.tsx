import { type FormEvent, useState } from 'react';
import { type Plugin, useCreatePlugin, useDeletePlugin, usePluginLog, usePlugins } from '../../api/org';
import { useProject } from '../../api/projects';
import { SelectField, TextField } from '../../components/Field';
import { errorLookup, fieldErrorsOf } from '../../components/field-errors';
import { Empty, Loading } from '../../components/States';
import { ErrorNotice } from '../../components/ErrorNotice';
import { ConfirmButton, Pager, RoleNote, MadeBy, TableHead, ProjectSelect } from './widgets';

const LIMIT = 20;
const LOG_LIMIT = 50;

function PluginForm() {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const create = useCreatePlugin();
  const errorOf = errorLookup(fieldErrorsOf(create.error));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { name: name.trim(), url: url.trim(), secret },
      {
        onSuccess: () => {
          setName('');
          setUrl('');
          setSecret('');
        },
      },
    );
  };
  return (
    <form onSubmit={submit} noValidate aria-labelledby="plugin-form-title" autoComplete="off">
      <h3 id="plugin-form-title">Register a plugin</h3>
      <TextField label="Plugin name" value={name} onChange={setName} error={errorOf('name')} />
      <TextField
        label="Plugin URL"
        type="url"
        value={url}
        onChange={setUrl}
        error={errorOf('url')}
        hint="Each task of a Plugin stage is POSTed here."
      />
      <TextField
        label="Plugin secret"
        type="password"
        value={secret}
        onChange={setSecret}
        error={errorOf('secret')}
        hint="Sent as the Secret header of every call. Write-only: stored encrypted, never shown again."
      />
      <button type="submit" disabled={create.isPending || !name.trim() || !url.trim() || !secret}>
        {create.isPending ? 'Registering…' : 'Register plugin'}
      </button>
      <ErrorNotice place="form" error={create.error} fieldsShown />
      {create.data && (
        <p className="form-ok" role="status">
          {create.data.plugin.name} is registered: name it in a Plugin stage of a workflow.
        </p>
      )}
      <p className="muted">
        A plugin cannot be changed once registered: register it again under a new name, point the Plugin stages at it,
        then delete the old one.
      </p>
    </form>
  );
}

function PluginStageSelect({
  projectId,
  plugins,
  value,
  onChange,
}: {
  projectId: string;
  plugins: Plugin[];
  value: string;
  onChange: (stageId: string) => void;
}) {
  const project = useProject(projectId);
  const pluginName = (id: unknown) => plugins.find((p) => p._id === id)?.name ?? String(id);
  const stages = (project.data?.stages ?? []).filter((s) => s.type === 'Plugin');
  return (
    <SelectField
      label="Plugin stage"
      value={value}
      options={[
        { value: '', label: 'Every stage' },
        ...stages.map((s) => ({ value: s.id, label: `${s.name ?? s.id} (${pluginName(s.pluginId)})` })),
      ]}
      onChange={onChange}
    />
  );
}

function PluginLog({ plugins }: { plugins: Plugin[] }) {
  const [projectId, setProjectId] = useState('');
  const [stageId, setStageId] = useState('');
  const [page, setPage] = useState(1);
  const log = usePluginLog(projectId, stageId, page, LOG_LIMIT);
  return (
    <section className="card" aria-labelledby="plugin-log-title">
      <h2 id="plugin-log-title">Plugin log</h2>
      <p className="muted">
        What the plugins wrote while working on a project’s tasks, and Annotary’s own lines about each call.
      </p>
      <div className="inline-form">
        <ProjectSelect
          label="Project of the log"
          none="Choose a project"
          value={projectId}
          onChange={(v) => {
            setProjectId(v);
            setStageId('');
            setPage(1);
          }}
        />
        {projectId && (
          <PluginStageSelect
            projectId={projectId}
            plugins={plugins}
            value={stageId}
            onChange={(v) => {
              setStageId(v);
              setPage(1);
            }}
          />
        )}
      </div>
      {projectId && log.isPending && <Loading what="the log" />}
      {log.isError && <ErrorNotice error={log.error} onRetry={() => void log.refetch()} />}
      {log.data?.logs.length === 0 && <Empty title="No plugin has written to this project’s log yet." />}
      {log.data && log.data.logs.length > 0 && (
        <>
          <table className="table compact log-table">
            <TableHead columns={['When', 'Stage', 'Task', 'From', 'Line']} />
            <tbody>
              {log.data.logs.map((l) => (
                <tr key={l._id}>
                  <td>{new Date(l.createdAt).toLocaleString()}</td>
                  <td>{l.stageId}</td>
                  <td>{l.taskId}</td>
                  <td>{l.source}</td>
                  <td className="log-line">{l.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Log pages" page={page} total={log.data.total} limit={LOG_LIMIT} onPage={setPage} />
        </>
      )}
    </section>
  );
}

/** Plugins of the organization: every member lists them; owners and admins register and delete. */
export function PluginsTab({ isAdmin }: { isAdmin: boolean }) {
  const [page, setPage] = useState(1);
  const list = usePlugins(page, LIMIT);
  const remove = useDeletePlugin();
  return (
    <div className="columns">
      <div className="grow">
        <section className="card" aria-labelledby="plugins-title">
          <h2 id="plugins-title">Plugins{list.data ? ` (${list.data.total})` : ''}</h2>
          {list.isPending && <Loading what="the plugins" />}
          {list.isError && <ErrorNotice error={list.error} onRetry={() => void list.refetch()} />}
          {list.data?.plugins.length === 0 && <Empty title="No plugin is registered yet." />}
          {list.data && list.data.plugins.length > 0 && (
            <table className="table">
              <TableHead columns={['Name', 'URL', 'Id (for Plugin stages)', 'Registered by']} actions />
              <tbody>
                {list.data.plugins.map((p) => (
                  <tr key={p._id}>
                    <td>{p.name}</td>
                    <td className="cell-url">{p.url}</td>
                    <td>
                      <code>{p._id}</code>
                    </td>
                    <td>
                      <MadeBy by={p.createdBy} at={p.createdAt} />
                    </td>
                    <td>
                      {isAdmin && (
                        <ConfirmButton
                          label={`Delete ${p.name}`}
                          question={`Delete the plugin ${p.name}?`}
                          confirmLabel={`Yes, delete ${p.name}`}
                          busy={remove.isPending}
                          onConfirm={() => remove.mutate(p._id)}
                        />
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <ErrorNotice place="form" error={remove.error} fieldsShown />
          {list.data && (
            <Pager label="Plugin pages" page={page} total={list.data.total} limit={LIMIT} onPage={setPage} />
          )}
        </section>
        <PluginLog plugins={list.data?.plugins ?? []} />
      </div>
      <div className="side">
        {isAdmin ? (
          <section className="card">
            <PluginForm />
          </section>
        ) : (
          <RoleNote>Registering and deleting plugins is for owners and admins of the organization.</RoleNote>
        )}
      </div>
    </div>
  );
}
