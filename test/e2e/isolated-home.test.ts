import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveDeploymentProfile } from '../../src/client/index.js';

const exec = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

// What `annotary login` leaves for a person who works with another server: its address and key.
const ELSEWHERE = 'http://annotary.elsewhere.example:8080/v2';
const THEIR_KEY = 'ak_someone_elses_key_0123456789abcdef';
const CLIENT_TESTS = 'test/client/client-deployments.test.ts';

interface VitestReport {
  success: boolean;
  testResults: { name: string; assertionResults: { title: string; status: string }[] }[];
}

describe("the suite on a machine where someone ran 'annotary login'", () => {
  let home: string;
  let env: Record<string, string | undefined>;

  beforeAll(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'annotary-logged-in-home-'));
    for (const deployment of ['eu', 'us']) {
      saveDeploymentProfile(
        deployment,
        { url: ELSEWHERE, apiKey: THEIR_KEY },
        { XDG_CONFIG_HOME: path.join(home, '.config') },
      );
    }
    // The person's shell: HOME holds the profile (in ~/.config, XDG_CONFIG_HOME unset), and the
    // variables a user of the command exports. Vitest's own variables are not passed on.
    env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
    delete env.XDG_CONFIG_HOME;
    Object.assign(env, {
      HOME: home,
      ANNOTARY_API_KEY: THEIR_KEY,
      ANNOTARY_URL_EU: ELSEWHERE,
      ANNOTARY_DEPLOYMENT: 'us',
      ANNOTARY_TEST_ENGINES: 'sqlite',
    });
  });
  afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

  it('is a profile the client reads outside the suite', async () => {
    // Address and key from the file alone: no ANNOTARY_URL_EU or ANNOTARY_API_KEY this time.
    const script = "import('./src/client/index.ts').then((c) => console.log(new c.Annotary().baseUrl))";
    const noEnv = { ...env, ANNOTARY_API_KEY: undefined, ANNOTARY_URL_EU: undefined };
    const { stdout } = await exec(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, env: noEnv });
    expect(stdout).toContain(ELSEWHERE);
  });

  // The client tests that resolve an address and a key from the environment and the profile (the
  // others give both explicitly, and the client then reads neither).
  it('leaves the client tests as they are on a fresh machine', async () => {
    const report = path.join(home, 'report.json');
    const vitest = path.join(ROOT, 'node_modules/vitest/vitest.mjs');
    // A failing run exits 1: its report says which tests failed.
    await exec(process.execPath, [vitest, 'run', CLIENT_TESTS, '--reporter=json', `--outputFile=${report}`], {
      cwd: ROOT,
      env,
      maxBuffer: 16 * 1024 * 1024,
    }).catch(() => undefined);
    const result = JSON.parse(fs.readFileSync(report, 'utf8')) as VitestReport;
    const failed = result.testResults.flatMap((file) =>
      file.assertionResults.filter((t) => t.status !== 'passed').map((t) => t.title),
    );
    expect(failed).toEqual([]);
    expect(result.success).toBe(true);
    const passed = result.testResults.flatMap((file) =>
      file.assertionResults.filter((t) => t.status === 'passed').map((t) => t.title),
    );
    expect(passed).toEqual(
      expect.arrayContaining([
        'falls back to http://localhost:8080/v2 for eu only',
        'refuses an unknown deployment name, and a deployment without a key, with a clear error',
      ]),
    );
    expect(result.testResults.map((file) => path.relative(ROOT, file.name))).toEqual([CLIENT_TESTS]);
  });
});
