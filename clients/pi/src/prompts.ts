// pi's dialogs in the thread. A tool or an extension that asks the person
// (ctx.ui.confirm, ctx.ui.select: a permission gate, say) asks at the
// terminal; with the package, the same question goes into the thread as a
// prompt with a button per answer. The first answer wins, from either
// side: an answer in the thread closes the terminal's dialog (through the
// dialog's abort signal) and pi gets the thread's answer; an answer at the
// terminal is shown in the thread. Either way the prompt in the thread is
// edited to say what was decided, where, and loses its buttons, and the
// terminal is told when the thread decided.
//
// pi has no hook for answering another extension's dialog, so the relay
// wraps the dialog methods of the UI context pi gives every extension (one
// object per session runtime, shared by all of them): install() on
// session_start, and the function it returns on session_shutdown.

import type { StreamButton } from "./stream.js";

/** The thread's side of the relay. */
export interface PromptChannel {
  /** Whether the thread can take prompts now (a follower with a thread). */
  ready(): boolean;
  /** Posts a prompt with its buttons; resolves to its message id. */
  post(text: string, buttons: StreamButton[]): Promise<string>;
  /** Edits the prompt to its final text, without buttons. */
  settle(messageId: string, text: string): Promise<void>;
  /** Tells the person at the terminal. */
  notify(text: string): void;
  /** Told of a failed post or edit. */
  onError(err: unknown): void;
}

/** The dialog methods the relay wraps (a subset of pi's ExtensionUIContext). */
export interface DialogUI {
  confirm(title: string, message: string, opts?: DialogOptions): Promise<boolean>;
  select(title: string, options: string[], opts?: DialogOptions): Promise<string | undefined>;
}

export interface DialogOptions {
  signal?: AbortSignal;
  timeout?: number;
}

/** The data of a prompt's button: "pi:ask:<prompt>:<answer index>". */
const PRESS = /^pi:ask:([a-z0-9]{1,16}):(\d{1,2})$/;

/** Buttons a platform shows under one message at most. */
const MAX_BUTTONS = 8;

const WRAPPED = Symbol.for("chatbus.pi.dialogs");

interface Pending {
  answers: string[];
  answer: (i: number) => void;
}

export class PromptRelay {
  private readonly pending = new Map<string, Pending>();
  private n = 0;
  private readonly prefix = Math.floor(Math.random() * 36 ** 4).toString(36);

  constructor(private readonly channel: PromptChannel) {}

  /**
   * Wraps ui's confirm and select so that they also ask in the thread.
   * Returns the function that puts the originals back.
   */
  install(ui: DialogUI): () => void {
    const target = ui as DialogUI & { [WRAPPED]?: true };
    if (target[WRAPPED]) return () => {};
    const confirm = ui.confirm;
    const select = ui.select;
    target.confirm = (title, message, opts) =>
      this.ask(
        title,
        message,
        ["Yes", "No"],
        (signal) => confirm.call(ui, title, message, { ...opts, signal }),
        (v) => (v ? 0 : 1),
        (i) => i === 0,
        opts,
      );
    target.select = (title, options, opts) =>
      this.ask(
        title,
        "",
        options,
        (signal) => select.call(ui, title, options, { ...opts, signal }),
        (v) => (v === undefined ? -1 : options.indexOf(v)),
        (i) => options[i],
        opts,
      );
    target[WRAPPED] = true;
    return () => {
      target.confirm = confirm;
      target.select = select;
      delete target[WRAPPED];
      // Dialogs still open go on at the terminal only.
      this.pending.clear();
    };
  }

  /** Whether data is a prompt's button press (handled or stale). */
  static isPress(data: string): boolean {
    return PRESS.test(data);
  }

  /**
   * A button press from the thread. Returns what to tell the person who
   * pressed: the answer taken, or why it was not.
   */
  press(data: string): string {
    const m = PRESS.exec(data);
    if (!m) return "";
    const p = this.pending.get(m[1]);
    const i = Number(m[2]);
    if (!p) return "This question was answered already.";
    if (i >= p.answers.length) return "That is not one of the answers.";
    this.pending.delete(m[1]);
    p.answer(i);
    return p.answers[i];
  }

  private async ask<T>(
    title: string,
    body: string,
    answers: string[],
    terminal: (signal: AbortSignal) => Promise<T>,
    indexOf: (v: T) => number,
    valueOf: (i: number) => T,
    opts: DialogOptions | undefined,
  ): Promise<T> {
    if (!this.channel.ready() || answers.length === 0) return terminal(opts?.signal ?? new AbortController().signal);
    const id = `${this.prefix}${(++this.n).toString(36)}`;
    const shown = answers.slice(0, MAX_BUTTONS);
    const text = promptText(title, body, answers.length > shown.length ? `(${answers.length - shown.length} more answers at the terminal)` : "");
    const closeTerminal = new AbortController();
    const signal = opts?.signal ? AbortSignal.any([opts.signal, closeTerminal.signal]) : closeTerminal.signal;

    let answer!: (i: number) => void;
    const fromThread = new Promise<number>((resolve) => (answer = resolve));
    this.pending.set(id, { answers: shown, answer });
    const posted = this.channel
      .post(
        text,
        shown.map((a, i) => ({ label: clip(a, 60), data: `pi:ask:${id}:${i}` })),
      )
      .catch((e) => {
        this.channel.onError(e);
        return "";
      });

    const atTerminal = terminal(signal);
    const first = await Promise.race([
      atTerminal.then((v) => ({ from: "terminal" as const, v })),
      fromThread.then((i) => ({ from: "thread" as const, i })),
    ]);
    let result: T;
    let verdict: string;
    if (first.from === "thread") {
      closeTerminal.abort();
      await atTerminal.catch(() => undefined);
      result = valueOf(first.i);
      verdict = `→ **${escapeMarkdown(shown[first.i])}** (answered here)`;
      this.channel.notify(`${title}: ${shown[first.i]} (answered in the chat)`);
    } else {
      this.pending.delete(id);
      result = first.v;
      const i = indexOf(first.v);
      verdict = i >= 0 ? `→ **${escapeMarkdown(answers[i])}** (answered at the terminal)` : "→ dismissed at the terminal";
    }
    const messageId = await posted;
    if (messageId) await this.channel.settle(messageId, `${text}\n\n${verdict}`).catch((e) => this.channel.onError(e));
    return result;
  }
}

/** A prompt in Markdown: the question in bold, what it says below. */
export function promptText(title: string, body: string, note: string): string {
  let s = `❓ **${escapeMarkdown(title)}**`;
  if (body) s += `\n${escapeMarkdown(body)}`;
  if (note) s += `\n_${escapeMarkdown(note)}_`;
  return s;
}

/** Shows s as the text it is: ASCII punctuation is backslash-escaped, as CommonMark allows. */
export function escapeMarkdown(s: string): string {
  return s.replace(/[!-/:-@[-`{-~]/g, "\\$&");
}

function clip(s: string, n: number): string {
  const chars = Array.from(s);
  return chars.length <= n ? s : chars.slice(0, n - 1).join("") + "…";
}
