import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Annotary, AnnotaryConfigError, readProfile, saveDeploymentProfile } from '../../src/client/index.js';
import { makeTestApp, type TestApp } from '../helpers/app.js';
import { listen } from '../helpers/files.js';
import { ENGINES } from '../helpers/stores.js';

describe.each(ENGINES)('client deployments against a real server on %s', (engine) => {
  let t: TestApp;
  let api: string;
  let dir: string;
  let env: Record<string, string>;
  // No variables and a profile file that does not exist: nothing of the machine's own set-up.
  let bare: Record<string, string>;
  // A port nobody listens on: a request sent there fails, so a passing call proves the address used.
  const nowhere = 'http://127.0.0.1:9/v2';

  beforeAll(async () => {
    t = await makeTestApp(engine);
    api = `${(await listen(t.app))('http://annotary.test')}/v2`;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-profile-'));
    env = { ANNOTARY_CONFIG: path.join(dir, 'nested', 'config.json') };
    bare = { ANNOTARY_CONFIG: path.join(dir, 'none', 'config.json') };
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  const reachable = async (client: Annotary) => expect(client.projects.list()).resolves.toMatchObject({ total: 0 });

  it('takes a deployment address and the key from the environment', async () => {
    const client = new Annotary({ deployment: 'us', env: { ANNOTARY_URL_US: api, ANNOTARY_API_KEY: t.ownerKey } });
    expect(client.deployment).toBe('us');
    expect(client.baseUrl).toBe(api);
    await reachable(client);
  });

  it('takes them from the profile file, written with mode 600', async () => {
    const file = saveDeploymentProfile('india', { url: api, apiKey: t.ownerKey }, env);
    expect(file).toBe(env.ANNOTARY_CONFIG);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(readProfile(env).deployments.india).toEqual({ url: api, apiKey: t.ownerKey });
    await reachable(new Annotary({ deployment: 'india', env }));
  });

  it('prefers the environment to the file, and baseUrl to both', async () => {
    saveDeploymentProfile('test', { url: nowhere, apiKey: t.ownerKey }, env);
    await reachable(new Annotary({ deployment: 'test', env: { ...env, ANNOTARY_URL_TEST: api } }));
    await reachable(new Annotary({ deployment: 'test', baseUrl: api, env: { ...env, ANNOTARY_URL_TEST: nowhere } }));
    const fromFile = new Annotary({ deployment: 'test', env, retry: { maxAttempts: 1 } });
    await expect(fromFile.projects.list()).rejects.toMatchObject({ status: 0 });
  });

  it('falls back to http://localhost:8080/v2 for eu only', () => {
    const eu = new Annotary({ apiKey: 'ak_x', env: bare });
    expect([eu.deployment, eu.baseUrl]).toEqual(['eu', 'http://localhost:8080/v2']);
    expect(() => new Annotary({ apiKey: 'ak_x', deployment: 'us', env: bare })).toThrow(/ANNOTARY_URL_US/);
  });

  it('refuses an unknown deployment name, and a deployment without a key, with a clear error', () => {
    expect(() => new Annotary({ apiKey: 'ak_x', deployment: 'mars', env: bare })).toThrow(AnnotaryConfigError);
    expect(() => new Annotary({ apiKey: 'ak_x', deployment: 'mars', env: bare })).toThrow(
      'unknown deployment "mars": use one of eu, us, india, test',
    );
    expect(() => new Annotary({ env: bare })).toThrow(/no API key for deployment "eu"/);
    expect(() => new Annotary({ apiKey: 'ak_x', baseUrl: 'ftp://x/v2', env: bare })).toThrow(/not an http\(s\) URL/);
  });
});
