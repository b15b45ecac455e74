import { execFileSync } from 'node:child_process';

/** A workflow whose Start keeps its tasks (autoForward off), so label imports have tasks to fill. */
export const START_STAGES = [
  { id: 'Start', type: 'Start', name: 'Start', next: ['Label'], autoForward: false },
  { id: 'Label', type: 'Label', name: 'Label', next: ['Complete'] },
  { id: 'Complete', type: 'Complete', name: 'Complete', next: [] },
];

/**
 * A zip made by Python's zipfile, which writes any entry name (`../`) and size asked of it;
 * `stored` keeps entries uncompressed (large entries that are no zip bomb).
 */
export function pythonZip(script: string, stored = false): Buffer {
  const mode = stored ? 'ZIP_STORED' : 'ZIP_DEFLATED';
  const code = `import io, sys, zipfile\nb = io.BytesIO()\nz = zipfile.ZipFile(b, 'w', zipfile.${mode})\n${script}\nz.close()\nsys.stdout.buffer.write(b.getvalue())`;
  return execFileSync('/usr/bin/python3', ['-c', code], { maxBuffer: 128 * 1024 * 1024 });
}
