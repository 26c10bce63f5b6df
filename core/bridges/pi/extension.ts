/**
 * agent-hooks for pi and oh-my-pi: every enabled agent-hooks plugin (Python) runs on pi's events.
 *
 * Installed by `agenthooks install pi` / `agenthooks install omp` (docs/hosts/pi.md, omp.md).
 * Loaded in-process by the agent through jiti: plain TypeScript, Node built-ins only, no build.
 *
 * One `python -I -m agent_hooks_core serve --stdio` child per session speaks newline-delimited
 * JSON-RPC 2.0 on its stdin/stdout. `initialize` says which pi events some plugin cares about;
 * only those are subscribed. Each event goes over in pi's own shape, the answer comes back in
 * pi's shape and is returned to pi (a `tool_call` argument rewrite arrives as `input` and is
 * copied into `event.input`, which is how pi applies rewrites; omp gets it as the result's `input`). While a plugin runs, the server
 * may call back for pi's UI (`ui.*`) and session (`session.*`).
 *
 * Fail-closed: when the child dies, hangs past the timeout (60 s; omp's `tool_call`: 25 s, inside
 * omp's own 30 s) or answers nonsense, `tool_call` blocks with a reason saying what failed; the next event restarts the child. Other events log
 * and continue. The child reads EOF and exits when the agent exits.
 */

import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import * as readline from "node:readline";

// `agenthooks install` rewrites the next line with this environment's interpreter and the host.
const BAKED: { python?: string; host?: string; args?: string[] } = {}; // @agent-hooks-config

const PROTOCOL = 1;
const GATING = new Set(["tool_call"]);
const TIMEOUT_MS = Number(process.env.AGENT_HOOKS_TIMEOUT_MS) || 60_000;
// omp gives a tool_call handler 30 s and then blocks in its own words: answer (fail closed) first
const OMP_TOOL_CALL_MS = 25_000;
const DEBUG = !!process.env.AGENT_HOOKS_DEBUG;

type Json = any;
type Pending = {
  resolve: (v: Json) => void; reject: (e: Error) => void; timer?: ReturnType<typeof setTimeout>; method: string;
  timeoutMs: number;
};

function log(message: string): void {
  if (DEBUG) process.stderr.write(`agent-hooks: ${message}\n`);
}

/** JSON that survives pi's event objects: functions, AbortSignals and cycles are dropped. */
function toJson(value: Json): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_key, v) => {
    if (typeof v === "function" || typeof v === "symbol") return undefined;
    if (typeof v === "bigint") return v.toString();
    if (v && typeof v === "object") {
      if (typeof AbortSignal !== "undefined" && v instanceof AbortSignal) return undefined;
      if (seen.has(v)) return undefined;
      seen.add(v);
    }
    return v;
  });
}

class Server {
  child: ChildProcess | null = null;
  pending = new Map<number, Pending>();
  nextId = 0;
  /** why the last child ended without being asked to; reported by the next tool_call */
  death: string | null = null;
  /** server-to-client requests being answered (UI dialogs): the timeouts wait for them */
  uiDepth = 0;
  stderrTail: string[] = [];
  ctx: Json = null;

  constructor(readonly pi: Json, readonly host: string, readonly python: string, readonly args: string[]) {}

  running(): boolean {
    return this.child !== null;
  }

  start(): void {
    const argv = ["-I", "-m", "agent_hooks_core", "serve", "--stdio", ...this.args];
    log(`starting ${this.python} ${argv.join(" ")}`);
    const child = spawn(this.python, argv, { stdio: ["pipe", "pipe", "pipe"], cwd: process.cwd() });
    this.child = child;
    this.stderrTail = [];
    child.on("error", (err: Error) => this.ended(child, `could not start ${this.python}: ${err.message}`));
    child.on("exit", (code: number | null, signal: string | null) =>
      this.ended(child, `the agent-hooks server exited unexpectedly (${signal ? `signal ${signal}` : `exit code ${code}`})`));
    child.stdin!.on("error", () => undefined); // EPIPE when it died: reported by "exit"
    readline.createInterface({ input: child.stdout! }).on("line", (line: string) => this.receive(child, line));
    readline.createInterface({ input: child.stderr! }).on("line", (line: string) => {
      this.stderrTail.push(line);
      if (this.stderrTail.length > 20) this.stderrTail.shift();
      log(`server: ${line}`);
    });
    // the session, not this child, keeps the agent alive: pending requests hold timers instead
    (child as Json).unref?.();
    for (const s of [child.stdin, child.stdout, child.stderr]) (s as Json)?.unref?.();
  }

  /** The child ended (or could not start): fail what waits on it, remember why. */
  ended(child: ChildProcess, why: string): void {
    if (this.child !== child) return; // an older child we already replaced or stopped
    this.child = null;
    const tail = this.stderrTail.filter((l) => l.trim()).slice(-1)[0];
    this.death = tail ? `${why}: ${tail}` : why;
    log(this.death);
    this.failAll(this.death);
  }

  failAll(why: string): void {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) {
      if (p.timer) clearTimeout(p.timer);
      p.reject(new Error(why));
    }
  }

  stop(): void {
    const child = this.child;
    this.child = null;
    if (child) {
      try {
        child.stdin!.end();
      } catch {
        /* already gone */
      }
      child.kill("SIGTERM");
    }
    this.failAll("the agent-hooks server was stopped");
  }

  write(message: Json): void {
    const child = this.child;
    if (!child) throw new Error(this.death ?? "the agent-hooks server is not running");
    child.stdin!.write(toJson(message) + "\n");
  }

  request(method: string, params: Json, timeoutMs = TIMEOUT_MS): Promise<Json> {
    return new Promise((resolve, reject) => {
      const id = ++this.nextId;
      const p: Pending = { resolve, reject, method, timeoutMs };
      this.pending.set(id, p);
      this.arm(id, p, timeoutMs);
      try {
        this.write({ jsonrpc: "2.0", id, method, params });
      } catch (err) {
        this.pending.delete(id);
        if (p.timer) clearTimeout(p.timer);
        reject(err as Error);
      }
    });
  }

  arm(id: number, p: Pending, timeoutMs: number): void {
    if (p.timer) clearTimeout(p.timer);
    if (this.uiDepth > 0) return; // a dialog is open: the user, not the server, is slow
    p.timer = setTimeout(() => {
      if (!this.pending.has(id)) return;
      const why = `the agent-hooks server did not answer ${p.method} within ${timeoutMs / 1000}s`;
      log(why);
      // a hung server is replaced: the next event starts a fresh one
      const child = this.child;
      this.child = null;
      child?.kill("SIGKILL");
      this.failAll(why);
    }, timeoutMs);
  }

  receive(child: ChildProcess, line: string): void {
    if (this.child !== child || !line.trim()) return;
    let msg: Json;
    try {
      msg = JSON.parse(line);
    } catch {
      return this.nonsense(child, `the agent-hooks server wrote a line that is not JSON: ${line.slice(0, 200)}`);
    }
    if (!msg || typeof msg !== "object" || msg.jsonrpc !== "2.0") {
      return this.nonsense(child, `the agent-hooks server sent something that is not JSON-RPC: ${line.slice(0, 200)}`);
    }
    if (typeof msg.method === "string") {
      void this.serveClientSide(msg);
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (p.timer) clearTimeout(p.timer);
    if (msg.error) p.reject(new Error(`agent-hooks server error: ${msg.error.message ?? toJson(msg.error)}`));
    else p.resolve(msg.result);
  }

  nonsense(child: ChildProcess, why: string): void {
    this.child = null;
    child.kill("SIGKILL");
    this.death = null; // reported now, through the requests that fail
    this.failAll(why);
  }

  /** Drop a server that misbehaved (its answers already reported); the next event starts another. */
  discard(): void {
    const child = this.child;
    this.child = null;
    this.death = null;
    child?.kill("SIGKILL");
    this.failAll("the agent-hooks server was replaced after a nonsense answer");
  }

  /** The server asks for pi's UI or session while a plugin runs. */
  async serveClientSide(msg: Json): Promise<void> {
    const isRequest = msg.id !== undefined && msg.id !== null;
    if (isRequest) this.pauseTimers(+1);
    let result: Json = null;
    let error: Json = null;
    try {
      result = await this.clientMethod(msg.method, msg.params ?? {});
    } catch (err) {
      error = { code: -32603, message: (err as Error)?.message ?? String(err) };
    } finally {
      if (isRequest) this.pauseTimers(-1);
    }
    if (!isRequest) return;
    try {
      this.write(error ? { jsonrpc: "2.0", id: msg.id, error } : { jsonrpc: "2.0", id: msg.id, result: result ?? null });
    } catch {
      /* the server is gone: its requests already failed */
    }
  }

  pauseTimers(delta: number): void {
    this.uiDepth += delta;
    for (const [id, p] of this.pending) {
      if (this.uiDepth > 0) {
        if (p.timer) clearTimeout(p.timer);
        p.timer = undefined;
      } else {
        this.arm(id, p, p.timeoutMs);
      }
    }
  }

  async clientMethod(method: string, params: Json): Promise<Json> {
    const ui = this.ctx?.ui;
    switch (method) {
      case "ui.confirm":
        return ui ? !!(await ui.confirm(String(params.title ?? ""), String(params.message ?? ""))) : false;
      case "ui.select":
        return ui ? ((await ui.select(String(params.title ?? ""), params.options ?? [])) ?? null) : null;
      case "ui.input":
        return ui ? ((await ui.input(String(params.title ?? ""), params.placeholder ?? undefined)) ?? null) : null;
      case "ui.editor":
        return ui ? ((await ui.editor(String(params.title ?? ""), params.prefill ?? undefined)) ?? null) : null;
      case "ui.notify": {
        const level = ["info", "warning", "error"].includes(params.level) ? params.level : "info";
        ui?.notify?.(String(params.message ?? ""), level);
        return null;
      }
      case "ui.setStatus":
        ui?.setStatus?.(String(params.key ?? "agent-hooks"), params.text ?? undefined);
        return null;
      case "session.sendMessage":
        this.pi.sendMessage(params.message, params.options ?? undefined);
        return null;
      case "session.appendEntry":
        this.pi.appendEntry(String(params.customType ?? "agent-hooks"), params.data);
        return null;
      default:
        throw new Error(`unknown method ${method}`);
    }
  }

  async initialize(hasUI?: boolean): Promise<Json> {
    if (!this.running()) this.start();
    const init = await this.request("initialize", { host: this.host, cwd: process.cwd(), has_ui: hasUI });
    if (!init || typeof init !== "object" || init.protocol !== PROTOCOL || !Array.isArray(init.events)) {
      throw new Error(`the agent-hooks server answered initialize with nonsense: ${toJson(init)?.slice(0, 200)}`);
    }
    for (const e of init.errors ?? []) log(`initialize: ${e}`);
    this.death = null;
    return init;
  }
}

function blockReason(why: string): Json {
  return { block: true, reason: `agent-hooks could not check this tool call, so it is blocked (fail-closed): ${why}` };
}

/** pi applies argument rewrites by mutating `event.input` in place. */
function applyInput(target: Json, input: Json): void {
  if (!target || typeof target !== "object" || !input || typeof input !== "object") return;
  for (const key of Object.keys(target)) if (!(key in input)) delete target[key];
  Object.assign(target, input);
}

export default async function agentHooks(pi: Json): Promise<void> {
  const host = process.env.AGENT_HOOKS_HOST || BAKED.host || "pi";
  const python = process.env.AGENT_HOOKS_PYTHON || BAKED.python || "python3";
  const server = new Server(pi, host, python, BAKED.args ?? []);
  let events: string[] = [];
  let commands: Array<{ name: string; description?: string }> = [];
  try {
    const init = await server.initialize();
    events = init.events;
    commands = init.commands ?? [];
  } catch (err) {
    // no plugin list: still gate tool calls (they fail closed until a restart works)
    log(`initialize failed: ${(err as Error).message}`);
    events = [...GATING];
    server.death = (err as Error).message;
  }

  const forward = async (name: string, event: Json, ctx: Json): Promise<Json> => {
    server.ctx = ctx;
    const gating = GATING.has(name);
    if (!server.running()) {
      if (server.death && gating) {
        const why = server.death;
        server.death = null; // reported once: the next event starts a fresh server
        return blockReason(`${why}; the next event restarts it`);
      }
      try {
        await server.initialize(ctx?.hasUI);
      } catch (err) {
        server.death = null;
        if (gating) return blockReason((err as Error).message);
        log(`${name}: ${(err as Error).message}`);
        return undefined;
      }
    }
    let result: Json;
    try {
      const timeoutMs = name === "tool_call" && host === "omp" ? Math.min(TIMEOUT_MS, OMP_TOOL_CALL_MS) : TIMEOUT_MS;
      result = await server.request("event", { host, name, payload: event, has_ui: !!ctx?.hasUI }, timeoutMs);
    } catch (err) {
      server.death = null;
      if (gating) return blockReason((err as Error).message);
      log(`${name}: ${(err as Error).message}`);
      return undefined;
    }
    for (const e of result?.errors ?? []) log(String(e));
    const answer = result?.answer;
    if (!result || typeof result !== "object" || (answer !== null && answer !== undefined && typeof answer !== "object")) {
      const why = `the agent-hooks server answered ${name} with nonsense: ${toJson(result)?.slice(0, 200)}`;
      server.discard(); // a server that answers nonsense is not trusted again: the next event starts a fresh one
      if (gating) return blockReason(why);
      log(why);
      return undefined;
    }
    if (answer === null || answer === undefined) return undefined;
    if (name === "tool_call") {
      if (answer.block !== undefined && typeof answer.block !== "boolean") {
        server.discard();
        return blockReason(`the agent-hooks server answered tool_call with nonsense: ${toJson(answer).slice(0, 200)}`);
      }
      // omp takes a rewrite as the result's `input` (and revalidates it); pi by `event.input` in place
      if (answer.input !== undefined && host === "omp") return answer;
      if (answer.input !== undefined) applyInput(event.input, answer.input);
      const { input: _input, ...rest } = answer;
      return Object.keys(rest).length ? rest : undefined;
    }
    return answer;
  };

  for (const name of events) {
    if (name === "session_shutdown") continue; // below: it also stops the server
    pi.on(name, (event: Json, ctx: Json) => forward(name, event, ctx));
  }
  pi.on("session_shutdown", async (event: Json, ctx: Json) => {
    try {
      if (events.includes("session_shutdown") && server.running()) await forward("session_shutdown", event, ctx);
      if (server.running()) await server.request("shutdown", {}, 5_000).catch(() => undefined);
    } finally {
      server.stop();
    }
  });

  for (const command of commands) {
    pi.registerCommand(command.name, {
      description: command.description ?? "agent-hooks plugin command",
      handler: async (args: string, ctx: Json) => {
        server.ctx = ctx;
        try {
          if (!server.running()) await server.initialize(ctx?.hasUI);
          const res = await server.request("command", { name: command.name, args: args ?? "" });
          if (res?.output) ctx?.ui?.notify?.(String(res.output), "info");
        } catch (err) {
          ctx?.ui?.notify?.(`/${command.name}: ${(err as Error).message}`, "error");
        }
      },
    });
  }
}
