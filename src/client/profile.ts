import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isRecord } from './errors.js';

/** What `annotary login` keeps per deployment. */
export interface DeploymentProfile {
  url?: string;
  apiKey?: string;
}

export interface Profile {
  deployments: Partial<Record<string, DeploymentProfile>>;
}

export type Env = Record<string, string | undefined>;

/** `ANNOTARY_CONFIG`, else `$XDG_CONFIG_HOME/annotary/config.json`, else `~/.config/annotary/config.json`. */
export function profilePath(env: Env = process.env): string {
  if (env.ANNOTARY_CONFIG) return path.resolve(env.ANNOTARY_CONFIG);
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'annotary', 'config.json');
}

/** The profile file, or an empty profile when there is none. A file that is not JSON is an error. */
export function readProfile(env: Env = process.env): Profile {
  const file = profilePath(env);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { deployments: {} };
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`the profile file ${file} is not valid JSON`);
  }
  const deployments: Profile['deployments'] = {};
  if (isRecord(parsed) && isRecord(parsed.deployments)) {
    for (const [name, value] of Object.entries(parsed.deployments)) {
      if (!isRecord(value)) continue;
      deployments[name] = {
        ...(typeof value.url === 'string' ? { url: value.url } : {}),
        ...(typeof value.apiKey === 'string' ? { apiKey: value.apiKey } : {}),
      };
    }
  }
  return { deployments };
}

/**
 * Stores one deployment's address and key. The file holds keys: it is written mode 600 (its
 * folder 700) through a temporary file, so a reader never sees half of it.
 */
export function saveDeploymentProfile(deployment: string, entry: DeploymentProfile, env: Env = process.env): string {
  const file = profilePath(env);
  const profile = readProfile(env);
  profile.deployments[deployment] = { ...profile.deployments[deployment], ...entry };
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(profile, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(temp, 0o600);
  fs.renameSync(temp, file);
  return file;
}
