// Follower client of a chatbus supervisor, over gRPC on its Unix socket
// (Connect's gRPC transport for Node.js, HTTP/2 over the socket).
//
//   const client = await connect();                      // default profile's paths
//   const follower = await client.register({ profileKey: "manual:1234" });
//   for await (const update of follower.updates()) {     // ends at close()
//     await follower.send(`**echo:** ${update.text}`);     // Markdown, on any platform
//     await follower.ack(update.seq);
//   }
//   await follower.close();
//   client.close();
//
// What a follower says in its thread goes through the message verbs, the
// same on every platform: send() (Markdown, a reply, buttons), edit(),
// react(), typing() and answer() (a button press). call() reaches any other
// method the thread's platform declares.
//
// Calls are made at most once. Every call() carries an idempotency key (a
// fresh one from newIdempotencyKey() unless the caller passes its own): the
// supervisor records the call under it before the platform is called, and a
// repeat of the key gets the first call's outcome without calling the
// platform again. While the supervisor is unavailable (restarting,
// unreachable), call() tries again with the same key until its deadline;
// when the supervisor it registered with was replaced by a new one (a
// restart), the follower registers again (same instance id and profile key:
// the same thread) and the call goes on with the same key. The verbs are
// made the same way. An error of call() (and of a verb) names the key it used (err.idempotencyKey): pass it back to repeat
// the call, e.g. after a DeadlineExceededError, which does not mean the call
// is lost.

import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import * as fs from "node:fs/promises";
import * as net from "node:net";
import * as path from "node:path";

import { Code, type ConnectError, createClient, type Client as RpcClient, type Interceptor } from "@connectrpc/connect";
import { Http2SessionManager, createGrpcTransport } from "@connectrpc/connect-node";

import {
  type ChatbusError,
  NotFoundError,
  PermissionDeniedError,
  ReplacedError,
  SessionUnknownError,
  TakenOverError,
  UnauthenticatedError,
  UnavailableError,
  toChatbusError,
} from "./errors.js";
import { DoctorService, type Owner, type RestartOutcome, type RestartProgress } from "./gen/chatbus/v1/doctor_pb.js";
import { ErrorReason } from "./gen/chatbus/v1/errors_pb.js";
import { AdminService, type GetInfoResponse } from "./gen/chatbus/v1/admin_pb.js";
import {
  BusService,
  type CallResponse,
  type Capabilities,
  type HeartbeatResponse,
  type Notice,
  type RegisterResponse,
  type Session,
  type SuspendResponse,
  SuspendReason,
} from "./gen/chatbus/v1/bus_pb.js";
import type { Binding, Follower as FollowerRow, Origin, Reference, Target, Update } from "./gen/chatbus/v1/types_pb.js";
import { checkSocketPath, defaultPaths } from "./paths.js";

/** Timeout of every unary call unless connect() is told otherwise. */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** Default deadline of a whole upload or download. */
export const FILE_TIMEOUT_MS = 300_000;

const FILE_CHUNK = 256 * 1024; // the supervisor takes up to 1 MiB per chunk

// Only the supervisor knows whether it pruned a session. A heartbeat that
// times out is retried for as long as it takes: the supervisor is busy and
// may well still hold the session, and the first heartbeat that gets through
// says. Any other failure (unreachable, refused) is retried until staleAfter
// has passed without one getting through: by then the supervisor has pruned
// the session, or it is a new one that never knew it. Used when the
// supervisor did not say its staleAfter.
const DEFAULT_STALE_INTERVALS = 5;

// A call that found the supervisor unavailable is tried again after this
// long, doubling up to RETRY_MAX_MS, while its deadline allows.
const RETRY_FIRST_MS = 50;
const RETRY_MAX_MS = 2000;

/** Nothing listens on the socket: supervisord is not running. */
export class NotRunningError extends Error {
  constructor(
    readonly socket: string,
    cause: unknown,
  ) {
    super(`supervisord is not running: ${socket}: ${(cause as Error)?.message ?? cause}`, { cause });
    this.name = "NotRunningError";
  }
}

/** `"<pid>:<process start ms>"`: unique per process, as the protocol suggests. */
export function defaultInstanceId(): string {
  return `${process.pid}:${Math.floor(performance.timeOrigin)}`;
}

/** A random key for one logical call (`"ts:"` + 128 random bits). */
export function newIdempotencyKey(): string {
  return "ts:" + randomBytes(16).toString("base64url");
}

export interface CallOptions {
  /** Makes the call at most once per key; default: a fresh key (newIdempotencyKey). Pass an earlier call's key to repeat it. */
  idempotencyKey?: string;
  /** The whole call's deadline, retries included; default: the client's timeoutMs. */
  timeoutMs?: number;
  /** Aborting it ends the call (the supervisor still makes it once). */
  signal?: AbortSignal;
}

/** A button under a message: its label and the data a press carries back (at most 64 bytes). */
export interface Button {
  label: string;
  data: string;
}

/** What send() takes beside the text. */
export interface SendOptions extends CallOptions {
  /** A message of the thread to answer; default none. */
  replyTo?: string;
  /**
   * Buttons under the message (at most 8). A press arrives as an update of
   * kind CALLBACK_QUERY whose text is the button's data, with an
   * INTERACTION reference to answer().
   */
  buttons?: Button[];
  /** A question the person must answer (a permission prompt): sent ahead of other messages. */
  prompt?: boolean;
}

/** What edit() takes beside the text. */
export interface EditOptions extends CallOptions {
  /** The message's buttons after the edit; none removes them. */
  buttons?: Button[];
}

export interface StreamOptions extends CallOptions {
  /** The answer is complete: the text is its final text. */
  final?: boolean;
  /** A message of the thread the answer answers; default none. */
  replyTo?: string;
  /** Buttons under the growing message and, with final, under the final one (none removes them). */
  buttons?: Button[];
}

/** What Follower.do resolves to. */
export interface CallResult {
  /** The platform's result decoded from JSON (undefined if empty). */
  result: unknown;
  /** The ids the result made available to the thread (kind, id): the message sent, its files. */
  references: Reference[];
  /** The key the call was made with: repeating it returns this outcome. */
  idempotencyKey: string;
  /** The supervisor's CallResponse as it came. */
  response: CallResponse;
}

/** How many updates a follower asks for per stream message (Subscribe max_batch). */
const UPDATES_BATCH = 256;

/** The fields of the RegisterRequest a follower registered with. */
interface RegisterInit {
  instanceId: string;
  profileKey: string;
  threadName: string;
  cwd: string;
  pid: number;
  provider: string;
  previousTarget?: Target;
  handoffToken: string;
  agent: string;
  launchId: string;
}

/** What a follower needs to register again with a restarted supervisor. */
interface Renewal {
  request: RegisterInit;
  /** The supervisor the session is registered with ("<pid>@<start>"), undefined if it did not say. */
  supervisor: string | undefined;
}

function supervisorIdentity(info: GetInfoResponse): string {
  return `${info.pid}@${info.startedAt?.seconds ?? 0n}.${info.startedAt?.nanos ?? 0}`;
}

async function rpc<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    throw toChatbusError(e);
  }
}

// A stream ended with err because the session itself ended: another
// instance took the binding over, or the instance id registered again.
function endsSession(err: ChatbusError): boolean {
  return err instanceof TakenOverError || (err instanceof ReplacedError && err.errorReason === ErrorReason.REPLACED);
}

export interface ConnectOptions {
  /** Socket path; default: the profile's (see defaultPaths). */
  socket?: string;
  /** The bearer secret itself; default: read from secretFile. */
  secret?: string;
  /** Secret file; default: the profile's `<state dir>/secret`. */
  secretFile?: string;
  /** Profile whose default paths to use; default "default". */
  profile?: string;
  /** Timeout of unary calls; default DEFAULT_TIMEOUT_MS. */
  timeoutMs?: number;
}

export interface RegisterOptions {
  /** Stable owner identity across reloads, e.g. "manual:<parent pid>". Required. */
  profileKey: string;
  /** Default "<pid>:<process start ms>": registering it again replaces the earlier registration. */
  instanceId?: string;
  /** Thread name; default: the base name of cwd (chosen by the supervisor). */
  threadName?: string;
  /** Default process.cwd(). */
  cwd?: string;
  /** Default process.pid. */
  pid?: number;
  /** Provider to bind on; default: the supervisor's default provider. */
  provider?: string;
  previousTarget?: Target;
  handoffToken?: string;
  /** What the session is ("claude-code", "pi"; default "": a plain follower), for the chat's sessions command. */
  agent?: string;
  /** The session's $CHATBUS_LAUNCH_ID when chatbus started it from a launch template (default ""), so the chat's `new` learns its thread. */
  launchId?: string;
  /** Called with each Notice a heartbeat returns (e.g. SUPERVISOR_DRAINING). */
  onNotice?: (notice: Notice) => void;
}

type BusClient = RpcClient<typeof BusService>;
type AdminClient = RpcClient<typeof AdminService>;
type DoctorClient = RpcClient<typeof DoctorService>;

/** Connects to a supervisor: Client.connect(opts). */
export function connect(opts: ConnectOptions = {}): Promise<Client> {
  return Client.connect(opts);
}

/**
 * A connection to one supervisor. `bus`, `admin` and `doctor` are the
 * generated clients, already authenticated, for anything the API below does
 * not wrap. Close it when done: the HTTP/2 connection keeps Node running.
 */
export class Client {
  readonly bus: BusClient;
  readonly admin: AdminClient;
  readonly doctor: DoctorClient;

  private constructor(
    readonly socketPath: string,
    readonly timeoutMs: number,
    private readonly session: Http2SessionManager,
    secret: string,
  ) {
    const auth: Interceptor = (next) => (req) => {
      req.header.set("authorization", `Bearer ${secret}`);
      return next(req);
    };
    const transport = createGrpcTransport({ baseUrl: "http://localhost", sessionManager: session, interceptors: [auth] });
    this.bus = createClient(BusService, transport);
    this.admin = createClient(AdminService, transport);
    this.doctor = createClient(DoctorService, transport);
  }

  /** Probes the socket (NotRunningError if nobody listens) and reads the secret. */
  static async connect(opts: ConnectOptions = {}): Promise<Client> {
    const defaults =
      opts.socket === undefined || (opts.secret === undefined && opts.secretFile === undefined)
        ? defaultPaths(opts.profile)
        : undefined;
    const socketPath = checkSocketPath(opts.socket ?? defaults!.socket);
    await probe(socketPath);
    let secret = opts.secret;
    if (secret === undefined) {
      const file = opts.secretFile ?? defaults!.secretFile;
      try {
        secret = (await fs.readFile(file, "utf8")).trim();
      } catch (e) {
        throw new Error(`read the supervisor's secret ${file}: ${(e as Error).message} (has supervisord run for this profile?)`, {
          cause: e,
        });
      }
      if (!secret) throw new Error(`the supervisor's secret ${file} is empty`);
    }
    const session = new Http2SessionManager("http://localhost", {}, { createConnection: () => net.connect(socketPath) });
    return new Client(socketPath, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, session, secret);
  }

  /** Registers a follower and starts its background heartbeat. */
  async register(opts: RegisterOptions): Promise<Follower> {
    const request: RegisterInit = {
      instanceId: opts.instanceId ?? defaultInstanceId(),
      profileKey: opts.profileKey,
      threadName: opts.threadName ?? "",
      cwd: opts.cwd ?? process.cwd(),
      pid: opts.pid ?? process.pid,
      provider: opts.provider ?? "",
      previousTarget: opts.previousTarget,
      handoffToken: opts.handoffToken ?? "",
      agent: opts.agent ?? "",
      launchId: opts.launchId ?? "",
    };
    const resp = await rpc(this.bus.register(request, { timeoutMs: this.timeoutMs }));
    const supervisor = await this.getInfo().then(supervisorIdentity, () => undefined);
    return new Follower(this, resp, opts.onNotice, { request, supervisor });
  }

  /** AdminService.GetInfo: version, pid, profile, paths, follower count. */
  getInfo(): Promise<GetInfoResponse> {
    return rpc(this.admin.getInfo({}, { timeoutMs: this.timeoutMs }));
  }

  /** AdminService.ListFollowers: the registered followers. */
  async listFollowers(): Promise<FollowerRow[]> {
    return (await rpc(this.admin.listFollowers({}, { timeoutMs: this.timeoutMs }))).followers;
  }

  /** DoctorService.Status: each provider's owner (pid, fence phase, admitting, occupancy), or one. */
  async doctorStatus(provider = ""): Promise<Owner[]> {
    return (await rpc(this.doctor.status({ provider }, { timeoutMs: this.timeoutMs }))).owners;
  }

  /**
   * DoctorService.Restart: restarts (or upgrades) a provider without losing
   * anything and resolves to the typed outcome (`kind ===
   * doctor.OutcomeKind.RESTARTED` on success). `drainMs` bounds the wait for
   * the owner to settle before committing (default: commit at once, the
   * owner exits once settled), `deadlineMs` the whole restart (default
   * 60 s); `onProgress` sees each step (phase, occupancy, what blocks).
   */
  async doctorRestart(
    provider: string,
    opts: { drainMs?: number; deadlineMs?: number; onProgress?: (p: RestartProgress) => void } = {},
  ): Promise<RestartOutcome> {
    const dur = (ms: number) => ({ seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1e6 });
    const deadlineMs = opts.deadlineMs ?? 60_000;
    const stream = this.doctor.restart(
      {
        provider,
        drain: opts.drainMs === undefined ? undefined : dur(opts.drainMs),
        deadline: opts.deadlineMs === undefined ? undefined : dur(opts.deadlineMs),
      },
      { timeoutMs: deadlineMs + this.timeoutMs },
    );
    let outcome: RestartOutcome | undefined;
    try {
      for await (const resp of stream) {
        if (resp.msg.case === "progress") opts.onProgress?.(resp.msg.value);
        else if (resp.msg.case === "outcome") outcome = resp.msg.value;
      }
    } catch (e) {
      throw toChatbusError(e);
    }
    if (!outcome) throw new Error("doctor restart ended without an outcome");
    return outcome;
  }

  /** Closes the connection; open streams end. */
  close(): void {
    this.session.abort();
  }
}

function probe(socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = net.connect(socketPath);
    const timer = setTimeout(() => s.destroy(new Error("timed out")), 2000);
    s.once("connect", () => {
      clearTimeout(timer);
      s.end();
      resolve();
    });
    s.once("error", (e) => {
      clearTimeout(timer);
      reject(new NotRunningError(socketPath, e));
    });
  });
}

export interface UpdatesOptions {
  /** Deliver updates with seq greater than this (replaying unacknowledged ones). */
  afterSeq?: bigint;
  /** Aborting it ends the iteration cleanly. */
  signal?: AbortSignal;
}

/**
 * A registered session with a background heartbeat. Close it.
 *
 * `response` is the supervisor's RegisterResponse: the session, the binding
 * (undefined while `origin` is ORIGIN_DETACHED), the origin, the platform's
 * capabilities and the timing contract. When a restarted supervisor no
 * longer knows the session, the follower registers again (same instance id
 * and profile key, so the same thread): `session` and `response` are then
 * the new registration's.
 */
export class Follower {
  readonly heartbeatIntervalMs: number;
  /**
   * The heartbeat interval while an update stream is open: the stream (kept
   * alive by the supervisor's keepalive) is the follower's liveness then.
   */
  readonly subscribedHeartbeatIntervalMs: number;
  readonly staleAfterMs: number;
  /** Resolves when the session is closed or lost (see `error`). */
  readonly done: Promise<void>;

  private resp: RegisterResponse;
  private resolveDone!: () => void;
  private timer: NodeJS.Timeout | undefined;
  private inflight: Promise<unknown> | undefined;
  private renewing: Promise<boolean> | undefined;
  private failures = 0;
  private lastOk = Date.now();
  private stopped = false;
  private closed = false;
  private isSuspended = false;
  private lost: ConnectError | undefined;
  private readonly streams = new Set<AbortController>();

  constructor(
    private readonly client: Client,
    response: RegisterResponse,
    private readonly onNotice?: (notice: Notice) => void,
    private readonly renewal?: Renewal,
  ) {
    this.resp = response;
    this.heartbeatIntervalMs = durationMs(response.heartbeatInterval) || 1000;
    this.subscribedHeartbeatIntervalMs = Math.max(durationMs(response.subscribedHeartbeatInterval), this.heartbeatIntervalMs);
    this.staleAfterMs = durationMs(response.staleAfter);
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    this.schedule();
  }

  /** The supervisor's answer to the (latest) Register. */
  get response(): RegisterResponse {
    return this.resp;
  }

  /** The session credentials (instance id and token). */
  get session(): Session {
    return this.resp.session!;
  }

  get instanceId(): string {
    return this.session.instanceId;
  }

  /** How the binding was obtained: FRESH, REUSE, HANDOFF or DETACHED. */
  get origin(): Origin {
    return this.resp.origin;
  }

  /**
   * The thread this follower is bound to; undefined while detached. When the
   * supervisor replaces the thread (a person deleted the topic), an open
   * updates() loop learns it from the stream and this is the new one from
   * then on.
   */
  get binding(): Binding | undefined {
    return this.resp.binding;
  }

  /**
   * The binding's thread: `provider`, `chat` and `thread` as the platform
   * writes them (`chatId`/`threadId` as numbers where they are); undefined
   * while detached.
   */
  get target(): Target | undefined {
    return this.resp.binding?.target;
  }

  /** What the platform offers: `platform`, `methods` (with the params naming an id of the thread), `maxTextChars`; undefined while detached. */
  get capabilities(): Capabilities | undefined {
    return this.resp.capabilities;
  }

  /** Why the session was lost (pruned, replaced, taken over, supervisor gone); undefined while alive and after close(). */
  get error(): ConnectError | undefined {
    return this.lost;
  }

  /** True until close() or until the heartbeat finds the session lost. */
  get alive(): boolean {
    return !this.stopped;
  }

  /** True once suspend() resolved: the binding waits for a successor. */
  get suspended(): boolean {
    return this.isSuspended;
  }

  /** One heartbeat now. The background timer already sends them. */
  heartbeat(): Promise<HeartbeatResponse> {
    return rpc(this.client.bus.heartbeat({ session: this.session }, { timeoutMs: this.client.timeoutMs }));
  }

  /**
   * The update stream: every unacknowledged update after `afterSeq`, then
   * live ones (`text`, `payload`, `sender`/`senderName`, `references` with
   * their kinds, `platform`, `target`). Iteration waits for updates and ends
   * cleanly at close(), when `signal` aborts, or when the loop breaks; it
   * throws the ChatbusError that ended the stream otherwise: SuspendedError
   * after suspend(), TakenOverError when another instance took the binding
   * over (the session is then lost), ReplacedError when a newer Subscribe
   * or registration took over, FailedPreconditionError when pruned,
   * UnavailableError when the supervisor stopped.
   *
   * To stop a loop that is waiting for the next update, abort `signal` or
   * call close(): an async generator's return() only runs once the pending
   * next() has settled.
   */
  async *updates(opts: UpdatesOptions = {}): AsyncGenerator<Update, void, undefined> {
    const ac = new AbortController();
    const onAbort = () => ac.abort(opts.signal?.reason);
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    if (opts.signal?.aborted || this.closed) ac.abort();
    this.streams.add(ac);
    try {
      const stream = this.client.bus.subscribe(
        { session: this.session, afterSeq: opts.afterSeq ?? 0n, maxBatch: UPDATES_BATCH },
        { signal: ac.signal },
      );
      for await (const resp of stream) {
        // The binding's thread was replaced: `binding` and `target` say
        // the new one from now on.
        if (resp.bindingChanged) this.resp.binding = resp.bindingChanged;
        if (resp.update) yield resp.update;
        yield* resp.updates;
      }
    } catch (e) {
      if (!ac.signal.aborted) {
        const err = toChatbusError(e);
        if (endsSession(err)) this.lose(err);
        throw err;
      }
      if (this.lost && ac.signal.reason === this.lost) throw this.lost;
      // Cancelled by the caller or close(): a clean end.
    } finally {
      this.streams.delete(ac);
      opts.signal?.removeEventListener("abort", onAbort);
      ac.abort();
      this.streamEnded();
    }
  }

  /** Acknowledges every update up to and including seq; returns the binding's highest acknowledged seq. */
  async ack(seq: bigint | number): Promise<bigint> {
    const resp = await rpc(this.client.bus.ack({ session: this.session, seq: BigInt(seq) }, { timeoutMs: this.client.timeoutMs }));
    return resp.ackedThrough;
  }

  /**
   * Calls a platform method in the follower's own thread, e.g.
   * `call("sendMessage", { text: "hi" })`; the supervisor fills in the chat
   * and thread. Returns the platform's result decoded from JSON (undefined
   * if empty); do() also returns the references it made.
   *
   * The call is made at most once per idempotency key; without one it gets
   * a fresh key. While the supervisor is unavailable it is tried again with
   * the same key until `timeoutMs` (default the client's) has passed. Its
   * error carries the key (`err.idempotencyKey`): a repeat with that key
   * returns the first call's outcome, which is how to learn the outcome of
   * a call whose deadline passed (DeadlineExceededError).
   */
  async call(method: string, params: object | string | Uint8Array = {}, opts: CallOptions = {}): Promise<unknown> {
    return (await this.do(method, params, opts)).result;
  }

  /** call(), resolving to a CallResult: the result, the references it made available, the idempotency key. */
  async do(method: string, params: object | string | Uint8Array = {}, opts: CallOptions = {}): Promise<CallResult> {
    const key = opts.idempotencyKey || newIdempotencyKey();
    const paramsJson =
      params instanceof Uint8Array
        ? params
        : new TextEncoder().encode(typeof params === "string" ? params : JSON.stringify(params));
    const resp = await this.retried(key, opts, (session, callOpts) =>
      this.client.bus.call({ session, method, paramsJson, idempotencyKey: key }, callOpts),
    );
    return { result: decodeJson(resp.resultJson), references: resp.references, idempotencyKey: key, response: resp };
  }

  /**
   * Posts `text` (Markdown) in the follower's thread and resolves to the ids
   * of the messages sent, in order: the provider renders it for its
   * platform and splits what is longer than one message may be. Made at
   * most once per idempotency key, like call().
   */
  async send(text: string, opts: SendOptions = {}): Promise<string[]> {
    const key = opts.idempotencyKey || newIdempotencyKey();
    const resp = await this.retried(key, opts, (session, callOpts) =>
      this.client.bus.sendMessage(
        { session, text, replyTo: opts.replyTo ?? "", buttons: opts.buttons ?? [], prompt: opts.prompt ?? false, idempotencyKey: key },
        callOpts,
      ),
    );
    return resp.messageIds;
  }

  /** Replaces the text (Markdown; it must fit in one message) of a message the follower sent, and its buttons (none removes them). */
  async edit(messageId: string, text: string, opts: EditOptions = {}): Promise<void> {
    const key = opts.idempotencyKey || newIdempotencyKey();
    await this.retried(key, opts, (session, callOpts) =>
      this.client.bus.editMessage({ session, messageId, text, buttons: opts.buttons ?? [], idempotencyKey: key }, callOpts),
    );
  }

  /**
   * Shows an answer as it is written (StreamMessage): call it with the
   * whole text so far (Markdown) under one stream id each time it grows,
   * and once with `final`. Where the platform has drafts (Telegram private
   * chats) the person sees a growing draft, then the final message;
   * elsewhere one message edited as it grows. A growing text returns at
   * once (the supervisor paces the platform calls); the final one lands
   * once (its idempotency key, else one made of the stream id). Resolves
   * to the ids of the messages that show the answer so far.
   */
  async stream(streamId: string, text: string, opts: StreamOptions = {}): Promise<string[]> {
    const key = opts.idempotencyKey ?? "";
    const resp = await this.retried(key, opts, (session, callOpts) =>
      this.client.bus.streamMessage(
        { session, streamId, text, final: opts.final ?? false, replyTo: opts.replyTo ?? "", buttons: opts.buttons ?? [], idempotencyKey: key },
        callOpts,
      ),
    );
    return resp.messageIds;
  }

  /** Sets the follower's reaction (one emoji) on a message of its thread. */
  async react(messageId: string, emoji: string, opts: CallOptions = {}): Promise<void> {
    const key = opts.idempotencyKey || newIdempotencyKey();
    await this.retried(key, opts, (session, callOpts) =>
      this.client.bus.react({ session, messageId, emoji, idempotencyKey: key }, callOpts),
    );
  }

  /** Shows in the thread, for a few seconds, that the session works (where the platform has a typing indicator). */
  async typing(opts: Omit<CallOptions, "idempotencyKey"> = {}): Promise<void> {
    await this.retried("", opts, (session, callOpts) => this.client.bus.sendTyping({ session }, callOpts));
  }

  /** Acknowledges a button press (the update's INTERACTION reference), with a short notice for the person who pressed ("": none). */
  async answer(interactionId: string, text = "", opts: CallOptions = {}): Promise<void> {
    const key = opts.idempotencyKey || newIdempotencyKey();
    await this.retried(key, opts, (session, callOpts) =>
      this.client.bus.answerInteraction({ session, interactionId, text, idempotencyKey: key }, callOpts),
    );
  }

  /**
   * Makes fn(session): tried again with the same key while the supervisor
   * is unavailable until the deadline, and after registering again when
   * the supervisor was replaced. Its error names the key.
   */
  private async retried<T>(
    key: string,
    opts: Omit<CallOptions, "idempotencyKey">,
    fn: (session: Session, callOpts: { timeoutMs: number; signal?: AbortSignal }) => Promise<T>,
  ): Promise<T> {
    const deadline = Date.now() + (opts.timeoutMs ?? this.client.timeoutMs);
    for (let wait = RETRY_FIRST_MS; ; wait = Math.min(2 * wait, RETRY_MAX_MS)) {
      const session = this.session;
      try {
        return await fn(session, { timeoutMs: Math.max(deadline - Date.now(), 1), signal: opts.signal });
      } catch (e) {
        let err = toChatbusError(e);
        if (err instanceof SessionUnknownError) {
          try {
            if (await this.renew(session)) continue;
          } catch (again) {
            err = toChatbusError(again); // the new supervisor cannot register it yet
          }
        }
        err.idempotencyKey = key;
        const retry = err instanceof UnavailableError && deadline - Date.now() > wait && !opts.signal?.aborted;
        if (!retry || (await this.stoppedWithin(wait, opts.signal))) throw err;
      }
    }
  }

  /**
   * Sends a file into the follower's own thread (Telegram: sendDocument, or
   * sendPhoto with `kind: "photo"`) and returns the platform's result (the
   * message sent) decoded from JSON. `data` is the content, a path (read as
   * a stream), or chunks (e.g. `fs.createReadStream(...)`); `filename`
   * defaults to the path's base name. Sent in chunks of 256 KiB.
   */
  async uploadFile(
    data: Uint8Array | AsyncIterable<Uint8Array> | string,
    opts: { filename?: string; caption?: string; kind?: "document" | "photo"; timeoutMs?: number } = {},
  ): Promise<unknown> {
    let filename = opts.filename;
    let source: AsyncIterable<Uint8Array>;
    if (typeof data === "string") {
      filename ??= path.basename(data);
      source = createReadStream(data, { highWaterMark: FILE_CHUNK });
    } else if (data instanceof Uint8Array) {
      source = (async function* () {
        yield data;
      })();
    } else {
      source = data;
    }
    if (!filename) throw new TypeError("uploadFile: filename is required unless data is a path");
    const header = { session: this.session, filename, caption: opts.caption ?? "", kind: opts.kind ?? "document" };
    async function* requests() {
      yield { msg: { case: "header" as const, value: header } };
      for await (const chunk of source) {
        for (let i = 0; i < chunk.length; i += FILE_CHUNK) {
          yield { msg: { case: "chunk" as const, value: chunk.subarray(i, i + FILE_CHUNK) } };
        }
      }
    }
    const resp = await rpc(this.client.bus.uploadFile(requests(), { timeoutMs: opts.timeoutMs ?? FILE_TIMEOUT_MS }));
    return decodeJson(resp.resultJson);
  }

  /**
   * Streams a file that arrived in the follower's own thread, by the
   * platform's file id (Telegram: `message.document.file_id`), chunk by
   * chunk. A file id from another thread is refused (PermissionDeniedError).
   */
  async *fileChunks(fileId: string, opts: { timeoutMs?: number } = {}): AsyncGenerator<Uint8Array> {
    const stream = this.client.bus.downloadFile(
      { session: this.session, fileId },
      { timeoutMs: opts.timeoutMs ?? FILE_TIMEOUT_MS },
    );
    try {
      for await (const resp of stream) {
        if (resp.chunk.length) yield resp.chunk;
      }
    } catch (e) {
      throw toChatbusError(e);
    }
  }

  /** Fetches a whole file of the thread (see fileChunks). */
  async downloadFile(fileId: string, opts: { timeoutMs?: number } = {}): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    for await (const chunk of this.fileChunks(fileId, opts)) parts.push(chunk);
    return Buffer.concat(parts);
  }

  /**
   * Holds the binding for a successor (session handoff) and resolves to the
   * `handoffToken` (and `expiresAt`) for the successor's
   * `register({ handoffToken })`. An open updates() loop ends with
   * SuspendedError and nothing more is delivered to this session; it may
   * still ack what it was sent. The heartbeat goes on until close(), and the
   * follower no longer registers again by itself.
   */
  async suspend(reason: SuspendReason = SuspendReason.SESSION_REPLACEMENT): Promise<SuspendResponse> {
    const resp = await rpc(this.client.bus.suspend({ session: this.session, reason }, { timeoutMs: this.client.timeoutMs }));
    this.isSuspended = true;
    return resp;
  }

  /**
   * Stops the heartbeat and unregisters (the supervisor keeps the binding
   * for a later REUSE). Open update streams end cleanly. Idempotent; a
   * session already lost is not an error here.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stop();
    await this.inflight?.catch(() => {});
    await this.renewing?.catch(() => {});
    try {
      if (!this.lost) {
        await this.client.bus.unregister({ session: this.session }, { timeoutMs: this.client.timeoutMs });
      }
    } catch (e) {
      const err = toChatbusError(e);
      if (!(err instanceof NotFoundError || err instanceof UnavailableError)) throw err;
    } finally {
      for (const ac of this.streams) ac.abort();
    }
  }

  private stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.resolveDone();
  }

  /** Resolves true if the follower stops (or signal aborts) within ms, else false. */
  private stoppedWithin(ms: number, signal?: AbortSignal): Promise<boolean> {
    return new Promise((resolve) => {
      const finish = (stopped: boolean) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        resolve(stopped);
      };
      const onAbort = () => finish(true);
      const timer = setTimeout(() => finish(this.stopped), ms);
      signal?.addEventListener("abort", onAbort, { once: true });
      void this.done.then(() => finish(true));
    });
  }

  /**
   * Registers again when the supervisor that answered "session unknown" to
   * stale is not the one this session registered with (it restarted): same
   * instance id and profile key, so the same thread. Resolves true if the
   * follower has a new session to go on with (from here or from a
   * concurrent renewal); never for a follower that is closed, lost or
   * suspended, nor when the supervisor is the same one (then the session was
   * pruned, replaced or taken over and really is gone). Rejects with an
   * UnavailableError when the supervisor cannot answer yet.
   */
  private renew(stale: Session): Promise<boolean> {
    if (this.session.token !== stale.token) return Promise.resolve(true);
    this.renewing ??= this.registerAgain().finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  private async registerAgain(): Promise<boolean> {
    const known = this.renewal?.supervisor;
    if (this.closed || this.lost || this.isSuspended || !this.renewal || known === undefined) return false;
    const timeoutMs = this.client.timeoutMs;
    let now: string;
    let again: RegisterResponse;
    try {
      now = supervisorIdentity(await this.client.admin.getInfo({}, { timeoutMs }));
      if (now === known) return false;
      const previousTarget = this.resp.binding?.target ?? this.renewal.request.previousTarget;
      again = await this.client.bus.register({ ...this.renewal.request, previousTarget, handoffToken: "" }, { timeoutMs });
    } catch (e) {
      const err = toChatbusError(e);
      if (err instanceof UnavailableError) throw err;
      console.warn(`chatbus: registering ${this.instanceId} again with the restarted supervisor: ${err.message}`);
      return false;
    }
    if (this.closed || this.lost) {
      // Closed meanwhile: leave nothing behind.
      await this.client.bus.unregister({ session: again.session }, { timeoutMs }).catch(() => {});
      return false;
    }
    this.resp = again;
    this.renewal.supervisor = now;
    console.warn(`chatbus: the supervisor restarted (${known}, now ${now}): ${this.instanceId} registered again`);
    return true;
  }

  /** Schedules the next heartbeat: rarely while an update stream is open. */
  private schedule(): void {
    const ms = this.streams.size > 0 ? this.subscribedHeartbeatIntervalMs : this.heartbeatIntervalMs;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.inflight = this.beat().finally(() => (this.inflight = undefined));
    }, ms);
  }

  /** The last stream ended: it was the liveness, so heartbeat now (then at the short interval). */
  private streamEnded(): void {
    if (this.stopped || this.streams.size > 0 || this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.inflight = this.beat().finally(() => (this.inflight = undefined));
  }

  private async beat(): Promise<void> {
    const session = this.session;
    // An open stream was the liveness until now.
    if (this.streams.size > 0) this.lastOk = Date.now();
    try {
      const resp = await this.client.bus.heartbeat({ session }, { timeoutMs: Math.max(this.heartbeatIntervalMs, 1000) });
      this.failures = 0;
      this.lastOk = Date.now();
      for (const n of resp.notices) {
        try {
          this.onNotice?.(n);
        } catch (e) {
          console.error("chatbus: onNotice callback failed:", e);
        }
      }
    } catch (e) {
      if (this.stopped) return;
      if (!(await this.heartbeatFailed(toChatbusError(e), session))) return;
    }
    if (!this.stopped) this.schedule();
  }

  /** Handles a failed heartbeat; false if the session is lost. */
  private async heartbeatFailed(err: ChatbusError, session: Session): Promise<boolean> {
    // A heartbeat names nothing but the session: NOT_FOUND is "session
    // unknown" whatever the reason says.
    if (err instanceof NotFoundError) {
      try {
        if (await this.renew(session)) {
          this.failures = 0;
          this.lastOk = Date.now();
          return true;
        }
      } catch (again) {
        err = toChatbusError(again); // the new supervisor cannot register it yet
      }
    }
    if (this.stopped) return false;
    const staleAfterMs =
      this.staleAfterMs >= this.heartbeatIntervalMs ? this.staleAfterMs : DEFAULT_STALE_INTERVALS * this.heartbeatIntervalMs;
    const gone = err instanceof NotFoundError || err instanceof PermissionDeniedError || err instanceof UnauthenticatedError;
    const unreachable = err.code !== Code.DeadlineExceeded && Date.now() - this.lastOk >= staleAfterMs;
    if (gone || unreachable) {
      this.lose(err);
      return false;
    }
    // The first failure, then every tenth: a long outage does not flood.
    if (++this.failures === 1 || this.failures % 10 === 0) {
      console.warn(`chatbus: heartbeat failed (${this.failures} in a row): ${err.message}`);
    }
    return true;
  }

  private lose(err: ConnectError): void {
    if (this.lost) {
      // A stream that says why (taken over, replaced) explains the
      // heartbeat's "session unknown".
      if (err instanceof ReplacedError && this.lost instanceof NotFoundError) this.lost = err;
      return;
    }
    this.lost = err;
    this.stop();
    for (const ac of this.streams) ac.abort(err);
  }
}

function durationMs(d: { seconds: bigint; nanos: number } | undefined): number {
  return d ? Number(d.seconds) * 1000 + Math.round(d.nanos / 1e6) : 0;
}

function decodeJson(b: Uint8Array): unknown {
  return b.length ? JSON.parse(new TextDecoder().decode(b)) : undefined;
}
