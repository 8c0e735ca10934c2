// The one place that puts a growing text into the thread: an assistant's
// answer as pi streams it, or the run's trace of tool calls.
//
// Today it is one message sent at the first text and edited as the text
// grows (SendMessage, then EditMessage); the supervisor's scheduler
// coalesces edits to the platform's rate and the last one always lands.
// When the bus has a streaming verb (the whole text so far, a stream id and
// a final flag), only Sink changes: AnswerStream already hands it the whole
// text each time and says which call is the last.
//
// Pacing on this side: at most one call is under way per stream, and a new
// edit starts no sooner than intervalMs after the previous one began, so a
// model that streams hundreds of deltas a second makes a handful of calls.
// Whatever arrived meanwhile is folded into the next call; the final text
// is sent as soon as the call before it is done.
//
// Splitting: an edit must fit in one message. A text longer than maxChars
// is cut into parts at a paragraph, line or word boundary (a code block cut
// in two is closed in the first part and opened again in the next), each
// part its own message; a part is edited to its final text once the text
// has grown past it, and only the last part is edited from then on.

/** A button under the streaming message: its label and the data a press carries back. */
export interface StreamButton {
  label: string;
  data: string;
}

/** Where a stream's text goes: the follower's message verbs. */
export interface Sink {
  /** Sends a new message; resolves to its ids (the last one carries the buttons). */
  send(text: string, buttons: StreamButton[]): Promise<string[]>;
  /** Replaces a message's text and buttons (none removes them). */
  edit(messageId: string, text: string, buttons: StreamButton[]): Promise<void>;
}

export interface StreamOptions {
  /** The longest text one message takes (the platform's limit). */
  maxChars: number;
  /** The shortest time between the starts of two calls while the text grows. */
  intervalMs: number;
  /** Buttons shown under the last part while the text grows (e.g. ⏹ Stop); removed at the end. */
  buttons?: StreamButton[];
  /** Told of a failed call; the stream goes on with the next text. */
  onError?: (err: unknown) => void;
}

/** A sent part: its message and the text it shows. */
interface Part {
  id: string;
  text: string;
}

/**
 * One growing text in the thread. update() with the whole text so far, as
 * often as it changes; finish() with the final text. Not reusable.
 */
export class AnswerStream {
  private latest = "";
  private final = false;
  private parts: Part[] = []; // messages sent, in order
  private running: Promise<void> | undefined;
  private lastStart = 0;
  private wake: (() => void) | undefined;
  private failed = false;
  private calls = 0;

  constructor(
    private readonly sink: Sink,
    private readonly opts: StreamOptions,
  ) {
    if (opts.maxChars < 64) throw new RangeError(`maxChars ${opts.maxChars} is too small`);
  }

  /** The ids of the messages sent so far, in order. */
  get messageIds(): string[] {
    return this.parts.map((p) => p.id);
  }

  /** How many send and edit calls the stream made. */
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
   * The final text: sent (or edited in) as soon as the call under way is
   * done, without the buttons. Resolves once it landed (or failed: see
   * onError). An empty final text with nothing sent sends nothing.
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
      if (this.failed || !this.dirty()) return;
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
    const want = this.layout(this.latest);
    if (want.length === 0) return false;
    if (want.length !== this.parts.length) return true;
    if (this.final && !this.settled) return true;
    return want.some((t, i) => t !== this.parts[i].text);
  }

  private settled = false; // the final text landed without buttons

  // One call towards text: a part that is done gets its final text, the
  // next new part is sent, or the last part is edited.
  private async step(text: string, final: boolean): Promise<void> {
    const want = this.layout(text);
    const buttons = final ? [] : (this.opts.buttons ?? []);
    try {
      // A part before the last whose text changed (the text grew past it):
      // its final text, no buttons.
      for (let i = 0; i < this.parts.length && i < want.length - 1; i++) {
        if (this.parts[i].text !== want[i] || (i === this.parts.length - 1 && this.hasButtons(i))) {
          this.calls++;
          await this.sink.edit(this.parts[i].id, want[i], []);
          this.parts[i].text = want[i];
          this.buttonsOn = -1;
          return;
        }
      }
      const i = want.length - 1;
      if (this.parts.length <= i) {
        this.calls++;
        const ids = await this.sink.send(want[i], buttons);
        if (ids.length === 0) throw new Error("the message was not sent (no id)");
        this.parts.push({ id: ids[ids.length - 1], text: want[i] });
        this.buttonsOn = buttons.length ? this.parts.length - 1 : -1;
        if (final && this.parts.length === want.length) this.settled = true;
        return;
      }
      if (this.parts[i].text !== want[i] || (final && this.hasButtons(i))) {
        this.calls++;
        await this.sink.edit(this.parts[i].id, want[i], buttons);
        this.parts[i].text = want[i];
        this.buttonsOn = buttons.length ? i : -1;
      }
      if (final) this.settled = true;
    } catch (e) {
      this.opts.onError?.(e);
      // A failed send leaves nothing to edit: give up on this stream. A
      // failed edit is made good by the next one, except the final one.
      if (final || this.parts.length === 0) this.failed = true;
    }
  }

  private buttonsOn = -1; // the part that shows the buttons, -1 if none
  private hasButtons(i: number): boolean {
    return this.buttonsOn === i;
  }

  // The parts text is shown in: each at most maxChars.
  private layout(text: string): string[] {
    return splitMarkdown(text.trim() === "" ? "" : text, this.opts.maxChars);
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
