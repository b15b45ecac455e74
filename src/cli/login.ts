import readline from 'node:readline/promises';
import { Writable } from 'node:stream';
import { checkDeployment, resolveConnection, saveDeploymentProfile } from '../client/index.js';
import { type ApiOptions, connect } from './connect.js';
import { UsageError } from './exit.js';
import { printJson } from './output.js';

/** Asks for the key on the terminal without echoing it. */
async function promptKey(): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _enc, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const rl = readline.createInterface({ input: process.stdin, output, terminal: true });
  try {
    const question = rl.question('API key: ');
    muted = true;
    return await question;
  } finally {
    muted = false;
    process.stderr.write('\n');
    rl.close();
  }
}

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}

/** `annotary login`: checks the key against the deployment, then stores it (and --url) in the profile file. */
export async function login(o: ApiOptions & { key?: string }): Promise<void> {
  const deployment = checkDeployment(o.deployment);
  const key = (o.key ?? (process.stdin.isTTY ? await promptKey() : await readStdin())).trim();
  if (!key) throw new UsageError('no API key given: pass --key, type it when asked, or pipe it on standard input');
  // The address: --url, else what the environment or the profile already says.
  const baseUrl = o.url ?? resolveConnection({ deployment, apiKey: key }).baseUrl;
  const client = connect({ ...o, deployment, url: baseUrl }, key);
  await client.projects.list({ limit: 1 });
  const file = saveDeploymentProfile(deployment, { url: baseUrl, apiKey: key });
  if (o.json) printJson({ deployment, url: baseUrl, profile: file });
  else process.stdout.write(`Logged in to ${deployment} at ${baseUrl}; key stored in ${file}\n`);
}
