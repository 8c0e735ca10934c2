// Which of the thread's updates may be acknowledged. An ack names a seq and
// covers every update up to it, but updates are done out of order: a
// button press is done at once, while a message given to a busy pi is done
// only once pi has it in the session (its queued steer is delivered into
// the next model request). So each update is tracked from its arrival, and
// the ack point is the highest seq with nothing pending at or below it.

export class AckTracker {
  private readonly order: bigint[] = []; // seqs not yet acked, arrival order
  private readonly done = new Set<bigint>();
  private acked = 0n;

  /** The highest seq acknowledged (or known to be). */
  get ackedThrough(): bigint {
    return this.acked;
  }

  /** How many updates arrived and are not covered by the ack point. */
  get outstanding(): number {
    return this.order.length;
  }

  /** An update arrived (in seq order). Seqs at or below the ack point are ignored. */
  arrived(seq: bigint): void {
    if (seq <= this.acked || this.order.includes(seq)) return;
    this.order.push(seq);
  }

  /** Whether seq arrived and is neither done nor acked. */
  pending(seq: bigint): boolean {
    return this.order.includes(seq) && !this.done.has(seq);
  }

  /**
   * Marks seq done and returns the new ack point if it moved (the seq to
   * ack), else undefined.
   */
  complete(seq: bigint): bigint | undefined {
    if (!this.order.includes(seq)) return undefined;
    this.done.add(seq);
    let moved: bigint | undefined;
    while (this.order.length > 0 && this.done.has(this.order[0])) {
      const s = this.order.shift()!;
      this.done.delete(s);
      moved = s;
    }
    if (moved !== undefined && moved > this.acked) this.acked = moved;
    return moved;
  }
}
