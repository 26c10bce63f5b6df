// Loads the shipped extension with a recording stand-in for pi's ExtensionAPI, fires the events
// given as JSON in argv[2] ([{name, event, hasUI?, ui?}]) and prints one JSON object with what pi
// would have seen: each handler's return value, the event objects after the handlers (pi applies
// argument rewrites from event.input), the commands registered and the session calls made.
import extension from "../../../core/bridges/pi/extension.ts";

const steps: Array<{ name: string; event: any; hasUI?: boolean; ui?: Record<string, any>; command?: string }> =
  JSON.parse(process.argv[2]);
const handlers: Record<string, Array<(e: any, ctx: any) => any>> = {};
const commands: Record<string, any> = {};
const session: any[] = [];
const pi = {
  on(name: string, fn: any) { (handlers[name] ??= []).push(fn); },
  registerCommand(name: string, opts: any) { commands[name] = opts; },
  sendMessage(message: any, options: any) { session.push(["sendMessage", message, options ?? null]); },
  appendEntry(type: string, data: any) { session.push(["appendEntry", type, data]); },
};

function ctxFor(step: any, uiCalls: any[]) {
  const answers = step.ui ?? {};
  const record = (m: string) => (...args: any[]) => { uiCalls.push([m, ...args]); return answers[m] ?? null; };
  return {
    hasUI: !!step.hasUI,
    ui: { confirm: async (...a: any[]) => record("confirm")(...a) ?? false, select: async (...a: any[]) => record("select")(...a),
          input: async (...a: any[]) => record("input")(...a), editor: async (...a: any[]) => record("editor")(...a),
          notify: (...a: any[]) => { uiCalls.push(["notify", ...a]); }, setStatus: (...a: any[]) => { uiCalls.push(["setStatus", ...a]); } },
  };
}

async function main() {
  await extension(pi);
  const results: any[] = [];
  for (const step of steps) {
    const uiCalls: any[] = [];
    const ctx = ctxFor(step, uiCalls);
    if (step.command) {
      await commands[step.command].handler(step.event ?? "", ctx);
      results.push({ command: step.command, ui: uiCalls });
      continue;
    }
    let answer: any = undefined;
    for (const fn of handlers[step.name] ?? []) answer = await fn(step.event, ctx);
    results.push({ name: step.name, answer: answer ?? null, event: step.event, ui: uiCalls });
  }
  for (const fn of handlers["session_shutdown"] ?? []) await fn({ type: "session_shutdown", reason: "quit" }, ctxFor({}, []));
  process.stdout.write(JSON.stringify({ subscribed: Object.keys(handlers).sort(), commands: Object.keys(commands),
                                        results, session }) + "\n");
}
main().catch((err) => { process.stderr.write(String(err?.stack ?? err) + "\n"); process.exit(3); });
