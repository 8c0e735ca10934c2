// The one place that puts a growing text into the thread: an assistant's
// answer as pi streams it, or the run's trace of tool calls.
//
// It streams with the bus's StreamMessage: the whole text so far under one
// stream id each time it grows, and once more, final, at the end. The
// supervisor shows it with what the platform has: a draft that grows, then
// one final message, in a Telegram private chat; elsewhere one message
// edited as it grows (the scheduler coalesces; a text that outgrows a
// message goes on in a new one). The final message lands once.
//
// Pacing on this side too: at most one call is under way per stream, and
// a new one starts no sooner than intervalMs after the previous one began,
// so a model that streams hundreds of deltas a second makes a handful of
// calls. Whatever arrived meanwhile is folded into the next call; the final
// text is sent as soon as the call before it is done.

/** A button under the streaming message: its label and the data a press carries back. */
export interface StreamButton {
  label: string;
  data: string;
}

/** Where a stream's text goes: the follower's StreamMessage. */
export interface Sink {
  /**
   * Shows text, the whole text so far of stream id (final: the last call,
   * its final text), with buttons under the growing message; resolves to
   * the ids of the messages that show it so far.
   */
  stream(id: string, text: string, final: boolean, buttons: StreamButton[]): Promise<string[]>;
}

export interface StreamOptions {
  /** The shortest time between the starts of two calls while the text grows. */
  intervalMs: number;
  /** Buttons shown under the growing message (e.g. ⏹ Stop); none on the final one. */
  buttons?: StreamButton[];
  /** Told of a failed call; the stream goes on with the next text. */
  onError?: (err: unknown) => void;
}

let streams = 0;

/**
 * One growing text in the thread. update() with the whole text so far, as
 * often as it changes; finish() with the final text. Not reusable.
 */
export class AnswerStream {
  private readonly id = `pi-${process.pid}-${Date.now().toString(36)}-${++streams}`;
  private latest = "";
  private shown = ""; // the text of the last call that landed
  private final = false;
  private settled = false; // the final text landed
  private ids: string[] = [];
  private running: Promise<void> | undefined;
  private lastStart = 0;
  private wake: (() => void) | undefined;
  private calls = 0;

  constructor(
    private readonly sink: Sink,
    private readonly opts: StreamOptions,
  ) {}

  /** The ids of the messages that show the text so far, in order. */
  get messageIds(): string[] {
    return this.ids;
  }

  /** How many StreamMessage calls the stream made. */
  get callCount(): number {
    return this.calls;
  }

  /** The whole text so far. Returns at once; the calls follow at their pace. */
  update(text: string): void {
    if (this.final || text === this.latest) return;
    this.latest = text;
    this.kick();
  }

  /**
   * The final text: sent as soon as the call under way is done, without the
   * buttons. Resolves once it landed (or failed: see onError). An empty
   * final text with nothing shown sends nothing.
   */
  finish(text: string = this.latest): Promise<void> {
    this.final = true;
    this.latest = text;
    this.kick();
    return this.running ?? Promise.resolve();
  }

  private kick(): void {
    if (this.wake) {
      const w = this.wake;
      this.wake = undefined;
      w();
    }
    this.running ??= this.pump().finally(() => (this.running = undefined));
  }

  // The one loop that makes the calls: it sends what is newest each time.
  private async pump(): Promise<void> {
    for (;;) {
      if (!this.dirty()) return;
      if (!this.final) {
        const wait = this.lastStart + this.opts.intervalMs - Date.now();
        if (wait > 0) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, wait);
            this.wake = () => {
              // finish() does not wait out the interval; update() does.
              if (this.final) {
                clearTimeout(timer);
                resolve();
              }
            };
          });
          this.wake = undefined;
          continue;
        }
      }
      this.lastStart = Date.now();
      await this.step(this.latest, this.final);
    }
  }

  // Whether the thread does not show the newest text yet.
  private dirty(): boolean {
    if (this.settled || this.latest.trim() === "") return false;
    return this.final || this.latest !== this.shown;
  }

  private async step(text: string, final: boolean): Promise<void> {
    this.calls++;
    try {
      this.ids = await this.sink.stream(this.id, text, final, final ? [] : (this.opts.buttons ?? []));
      this.shown = text;
      if (final) this.settled = true;
    } catch (e) {
      this.opts.onError?.(e);
      // A failed growing text is made good by the next one; a failed final
      // one ends the stream.
      if (final) this.settled = true;
    }
  }
}

/**
 * Cuts a Markdown text into parts of at most max characters: at the last
 * blank line, else the last line end, else the last space before the limit
 * (in the second half of the part), else at the limit itself. A fenced code
 * block that a cut goes through is closed at the end of the part and opened
 * again, with its info string, at the start of the next one. Empty text has
 * no parts.
 */
export function splitMarkdown(text: string, max: number): string[] {
  const parts: string[] = [];
  let rest = text;
  let reopen = ""; // the fence line to start the next part with
  while (rest.length > 0) {
    const head = reopen ? reopen + "\n" : "";
    const room = max - head.length;
    if (rest.length <= room) {
      parts.push(head + rest);
      break;
    }
    // Leave room to close a fence.
    let cut = cutAt(rest, room - 4);
    const piece = head + rest.slice(0, cut);
    const open = openFence(piece);
    if (open) {
      parts.push(piece.replace(/\n?$/, "\n") + open.fence);
      reopen = open.line;
    } else {
      parts.push(piece);
      reopen = "";
    }
    // The boundary itself (a blank line, a line end, a space) goes with the cut.
    while (cut < rest.length && (rest[cut] === "\n" || rest[cut] === " ")) cut++;
    rest = rest.slice(cut);
  }
  return parts.map((p) => p.replace(/\s+$/, "")).filter((p) => p !== "");
}

function cutAt(s: string, room: number): number {
  if (room < 1) room = 1;
  const window = s.slice(0, room + 1);
  const half = Math.floor(room / 2);
  for (const sep of ["\n\n", "\n", " "]) {
    const i = window.lastIndexOf(sep, room);
    if (i >= half) return i;
  }
  // Do not split a surrogate pair.
  const c = s.charCodeAt(room - 1);
  return c >= 0xd800 && c <= 0xdbff ? room - 1 : room;
}

// The fence a piece leaves open, if any: its closing fence and its opening line.
function openFence(piece: string): { fence: string; line: string } | undefined {
  let open: { fence: string; line: string } | undefined;
  for (const line of piece.split("\n")) {
    const m = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line);
    if (!m) continue;
    if (!open) {
      if (m[1][0] === "`" && m[2].includes("`")) continue; // not a fence: an inline span
      open = { fence: m[1], line: line.trimStart() };
    } else if (m[1][0] === open.fence[0] && m[1].length >= open.fence.length && m[2].trim() === "") {
      open = undefined;
    }
  }
  return open;
}
