/**
 * The last `capacity` ids added, with O(1) add and lookup. A ring of slots beside a Set:
 * evicting the oldest never walks the Set (iterating a Set from its start after many
 * deletions crosses every deleted slot, which made eviction cost grow with traffic).
 */
export class RecentIds {
  private readonly ring: Array<string | undefined>;
  private readonly members = new Set<string>();
  private next = 0;

  constructor(private readonly capacity: number) {
    this.ring = new Array<string | undefined>(capacity);
  }

  add(id: string): void {
    if (this.members.has(id)) return;
    const evicted = this.ring[this.next];
    if (evicted !== undefined) this.members.delete(evicted);
    this.ring[this.next] = id;
    this.members.add(id);
    this.next = (this.next + 1) % this.capacity;
  }

  has(id: string): boolean {
    return this.members.has(id);
  }
}
