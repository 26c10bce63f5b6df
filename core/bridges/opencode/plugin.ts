/**
 * agent-hooks for OpenCode: every enabled agent-hooks plugin (Python) runs on OpenCode's hooks.
 *
 * Installed by `agenthooks install opencode` into OpenCode's plugin directory (docs/hosts/opencode.md).
 * Plain TypeScript, Node/Bun built-ins only, no imports from @opencode-ai/plugin, no build.
 *
 * One `python -I -m agent_hooks_core serve --stdio` child per OpenCode process speaks
 * newline-delimited JSON-RPC 2.0 (initialize, event, shutdown; the server may call ui.* and
 * session.*). `initialize` names the hooks some plugin cares about; only those are returned to
 * OpenCode, except `tool.execute.before`, which is always there.
 *
 * Fail-closed: when the server cannot start, dies, hangs past the timeout or answers nonsense,
 * `tool.execute.before` throws (OpenCode does not run the tool and shows the model why). Other
 * hooks log and go on. A dead server is restarted by the next event. The child reads EOF and
 * exits when OpenCode exits. (OpenCode 1.18 never calls its `permission.ask` hook: not registered.)
 */

import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import * as readline from "node:readline";

// `agenthooks install opencode` rewrites the next line with this environment's interpreter.
const BAKED: { python?: string; args?: string[] } = {}; // @agent-hooks-config

const HOST = "opencode";
const TIMEOUT_MS = Number(process.env.AGENT_HOOKS_TIMEOUT_MS) || 60_000;
const DEBUG = !!process.env.AGENT_HOOKS_DEBUG;
const FAIL = "agent-hooks could not check this tool call, so it is blocked (fail-closed)";

type Json = any;

function log(message: string): void {
  if (DEBUG) process.stderr.write(`agent-hooks: ${message}\n`);
}

/** JSON of OpenCode's hook arguments: functions, symbols and cycles dropped. */
function toJson(value: Json): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value, (_k, v) => {
    if (typeof v === "function" || typeof v === "symbol") return undefined;
    if (typeof v === "bigint") return v.toString();
    if (v && typeof v === "object") {
      if (seen.has(v)) return undefined;
      seen.add(v);
    }
    return v;
  });
}

class Server {
  child: ChildProcess | null = null;
  pending = new Map<number, { resolve: (v: Json) => void; reject: (e: Error) => void; timer: ReturnType<typeof setTimeout> }>();
  nextId = 0;
  death: string | null = null;
  tail: string[] = [];
  ready: Promise<Json> | null = null;

  constructor(readonly python: string, readonly args: string[], readonly cwd: string) {}

  start(): Promise<Json> {
    const child = spawn(this.python, ["-I", "-m", "agent_hooks_core", "serve", "--stdio", ...this.args], {
      stdio: ["pipe", "pipe", "pipe"],
      cwd: this.cwd,
    });
    this.child = child;
    this.tail = [];
    child.on("error", (err: Error) => this.ended(child, `could not start ${this.python}: ${err.message}`));
    child.on("exit", (code: number | null, signal: string | null) =>
      this.ended(child, `the agent-hooks server exited (${signal ? `signal ${signal}` : `exit code ${code}`})`));
    child.stdin!.on("error", () => undefined);
    readline.createInterface({ input: child.stdout! }).on("line", (line: string) => this.receive(line));
    readline.createInterface({ input: child.stderr! }).on("line", (line: string) => {
      this.tail.push(line);
      if (this.tail.length > 20) this.tail.shift();
      log(`server: ${line}`);
    });
    (child as Json).unref?.();
    for (const s of [child.stdin, child.stdout, child.stderr]) (s as Json)?.unref?.();
    this.ready = this.request("initialize", { host: HOST, cwd: this.cwd, has_ui: false });
    return this.ready;
  }

  ended(child: ChildProcess, why: string): void {
    if (this.child !== child) return;
    this.child = null;
    this.ready = null;
    const last = this.tail.filter((l) => l.trim()).slice(-1)[0];
    this.death = last ? `${why}: ${last}` : why;
    log(this.death);
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new Error(this.death));
      this.pending.delete(id);
    }
  }

  request(method: string, params: Json): Promise<Json> {
    return new Promise((resolve, reject) => {
      const child = this.child;
      if (!child) return reject(new Error(this.death ?? "the agent-hooks server is not running"));
      const id = ++this.nextId;
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`the agent-hooks server did not answer ${method} within ${TIMEOUT_MS} ms`));
      }, TIMEOUT_MS);
      this.pending.set(id, { resolve, reject, timer });
      child.stdin!.write(toJson({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  }

  receive(line: string): void {
    let msg: Json;
    try {
      msg = JSON.parse(line);
    } catch {
      log(`unreadable line from the server: ${line.slice(0, 200)}`);
      return;
    }
    if (msg && typeof msg.method === "string") return this.serverCall(msg);
    const p = this.pending.get(msg?.id);
    if (!p) return;
    this.pending.delete(msg.id);
    clearTimeout(p.timer);
    if (msg.error) p.reject(new Error(String(msg.error.message ?? "error")));
    else p.resolve(msg.result);
  }

  /** The server asks for OpenCode's UI or session while a plugin runs: no dialog here. */
  serverCall(msg: Json): void {
    const answers: Record<string, Json> = { "ui.confirm": false, "ui.select": null, "ui.input": null, "ui.editor": null };
    if (msg.method === "ui.notify") process.stderr.write(`agent-hooks: ${msg.params?.message ?? ""}\n`);
    if (msg.id === undefined || !this.child) return;
    const result = msg.method in answers ? answers[msg.method] : null;
    this.child.stdin!.write(toJson({ jsonrpc: "2.0", id: msg.id, result }) + "\n");
  }

  /** The adapter's answer to one hook; throws when the server cannot give one. */
  async event(name: string, input: Json, output: Json): Promise<Json> {
    if (!this.child) await this.start();
    else await this.ready;
    const res = await this.request("event", { host: HOST, name, payload: { input, output } });
    if (!res || typeof res !== "object") throw new Error("the agent-hooks server answered nonsense");
    for (const e of res.errors ?? []) log(String(e));
    return res.answer ?? null;
  }
}

export const AgentHooks = async (ctx: Json) => {
  const python = BAKED.python ?? process.env.AGENT_HOOKS_PYTHON ?? "python3";
  const server = new Server(python, BAKED.args ?? [], ctx?.directory ?? process.cwd());
  let events: string[] = ["tool.execute.before"];
  try {
    const init = await server.start();
    events = Array.from(new Set(["tool.execute.before", ...(init?.events ?? [])]));
    for (const e of init?.errors ?? []) process.stderr.write(`agent-hooks: ${e}\n`);
  } catch (err) {
    process.stderr.write(`agent-hooks: ${(err as Error).message}; tool calls are blocked until it works\n`);
  }

  const soft = async (name: string, input: Json, output: Json): Promise<Json> => {
    try {
      return await server.event(name, input, output);
    } catch (err) {
      log(`${name}: ${(err as Error).message}`);
      return null;
    }
  };

  const hooks: Record<string, (input: Json, output: Json) => Promise<void>> = {
    "tool.execute.before": async (input, output) => {
      let ans: Json;
      try {
        ans = await server.event("tool.execute.before", input, output);
      } catch (err) {
        throw new Error(`${FAIL}: ${(err as Error).message}`);
      }
      if (ans?.block) throw new Error(String(ans.block));
      if (ans?.args && output?.args) {
        for (const k of Object.keys(output.args)) delete output.args[k];
        Object.assign(output.args, ans.args);
      }
    },
    "tool.execute.after": async (input, output) => {
      const ans = await soft("tool.execute.after", input, output);
      if (typeof ans?.output === "string") output.output = ans.output;
    },
    "chat.message": async (input, output) => {
      const ans = await soft("chat.message", input, output);
      if (ans?.block) throw new Error(String(ans.block));
      if (typeof ans?.text === "string" && Array.isArray(output?.parts)) {
        const texts = output.parts.filter((p: Json) => p?.type === "text");
        if (texts.length) {
          texts[0].text = ans.text;
          output.parts = output.parts.filter((p: Json) => p?.type !== "text" || p === texts[0]);
        }
      }
    },
    "chat.params": async (input, output) => {
      const ans = await soft("chat.params", input, output);
      if (ans?.params && typeof ans.params === "object") Object.assign(output, ans.params);
    },
    "experimental.chat.system.transform": async (input, output) => {
      const ans = await soft("experimental.chat.system.transform", input, output);
      if (Array.isArray(ans?.system) && Array.isArray(output?.system)) output.system.push(...ans.system);
    },
    "experimental.session.compacting": async (input, output) => {
      const ans = await soft("experimental.session.compacting", input, output);
      if (Array.isArray(ans?.context) && Array.isArray(output?.context)) output.context.push(...ans.context);
      if (typeof ans?.prompt === "string") output.prompt = ans.prompt;
    },
  };

  const result: Record<string, Json> = {};
  for (const name of Object.keys(hooks)) if (events.includes(name)) result[name] = hooks[name];
  if (events.includes("event")) result.event = async ({ event }: Json) => void (await soft("event", { event }, {}));
  return result;
};
