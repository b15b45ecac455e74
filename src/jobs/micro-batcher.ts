/**
 * Runs calls together that arrive close in time: those made in the same turn of the event
 * loop, and those made while the previous batch was still running (a group commit). Under
 * light load every call runs alone and at once; under heavy load batches grow by themselves,
 * so N store round trips become one without any timer to tune.
 */
export type BatchRunner<I, O> = (inputs: I[]) => Promise<(O | Error)[]>;

interface Waiting<I, O> {
  input: I;
  resolve: (value: O) => void;
  reject: (err: unknown) => void;
}

export class MicroBatcher<I, O> {
  private waiting: Waiting<I, O>[] = [];
  private running = 0;
  private scheduled = false;

  /**
   * `run` answers one result per input, in order; an Error there fails that call alone. A
   * throw fails every call of the batch. `parallel` batches may run at once (default one):
   * more is for batches that mostly wait on round trips to a server, each on its own connection.
   */
  constructor(
    private readonly run: BatchRunner<I, O>,
    private readonly maxBatch = 256,
    private readonly parallel = 1,
  ) {}

  submit(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.running >= this.parallel || this.scheduled) return;
    this.scheduled = true;
    // setImmediate, not a microtask: calls made by other handlers in this turn join the batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    const batch = this.waiting.splice(0, this.maxBatch);
    if (batch.length === 0) return;
    this.running++;
    try {
      const results = await this.run(batch.map((w) => w.input));
      batch.forEach((w, i) => {
        const r = results[i];
        if (r instanceof Error) w.reject(r);
        else if (r === undefined) w.reject(new Error('the batch gave no result for this call'));
        else w.resolve(r);
      });
    } catch (err) {
      for (const w of batch) w.reject(err);
    } finally {
      this.running--;
      if (this.waiting.length > 0) this.schedule();
    }
  }
}
