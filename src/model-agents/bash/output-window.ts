/**
 * Keeps what a command prints within a budget: the head in full, then a rolling tail, so a
 * command that prints gigabytes costs at most about twice the budget in memory.
 */
export class OutputWindow {
  private head = '';
  private tail = '';
  private total = 0;
  private readonly headMax: number;
  private readonly tailMax: number;

  constructor(maxChars: number) {
    this.headMax = Math.ceil(maxChars / 2);
    this.tailMax = maxChars - this.headMax;
  }

  push(text: string): void {
    this.total += text.length;
    if (this.head.length < this.headMax) {
      const room = this.headMax - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    this.tail += text;
    // Trim only once the tail is twice its size, so trimming costs O(1) per character.
    if (this.tail.length > 2 * this.tailMax) this.tail = this.tail.slice(-this.tailMax);
  }

  /** Everything, when it fits; else the head, a marker saying how much was left out, and the tail. */
  text(): string {
    const kept = this.tail.slice(this.tail.length - this.tailMax);
    const omitted = this.total - this.head.length - kept.length;
    if (omitted <= 0) return this.head + this.tail;
    return `${this.head}\n… [${omitted} characters omitted] …\n${this.tailMax > 0 ? kept : ''}`;
  }
}
