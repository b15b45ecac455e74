/**
 * Waiting on a condition instead of sleeping: tests stay fast when things are quick and
 * deterministic when they are slow, and the bound turns a hang into a named failure.
 */
export async function waitFor(
  probe: () => Promise<unknown> | unknown,
  what: string,
  timeoutMs = 15_000,
  intervalMs = 10,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
