/** Counts running handlers; waiters are served in arrival order. */
export class Semaphore {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {}

  get active(): number {
    return this.running;
  }

  acquire(): Promise<void> | undefined {
    if (this.running < this.limit) {
      this.running++;
      return undefined;
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    // The slot passes straight to the next waiter, so `running` stays the same.
    if (next) next();
    else this.running--;
  }
}
