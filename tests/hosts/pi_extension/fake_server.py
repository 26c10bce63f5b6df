"""A stand-in for ``agenthooks serve --stdio`` that misbehaves on purpose (FAKE_SERVER_MODE).

The extension starts it as its "python" (AGENT_HOOKS_PYTHON), with the usual arguments, which
are ignored. Every mode answers ``initialize`` properly (subscribing to tool_call and input)."""

import json
import os
import sys

MODE = os.environ["FAKE_SERVER_MODE"]
LOG = os.environ.get("FAKE_SERVER_LOG")


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def log(entry):
    if LOG:
        with open(LOG, "a") as f:
            f.write(json.dumps(entry) + "\n")


log({"started": os.getpid()})
for line in sys.stdin:
    msg = json.loads(line)
    log(msg)
    if "method" not in msg:
        continue  # a reply to our own request, handled inline below
    method, mid = msg["method"], msg.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {"protocol": 1, "version": "fake", "events": ["input", "tool_call"],
                                                      "commands": [{"name": "hello", "description": "says hello"}],
                                                      "plugins": ["fake"], "errors": []}})
    elif method == "shutdown":
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
        break
    elif method == "command":
        send({"jsonrpc": "2.0", "id": mid, "result": {"output": f"hello {msg['params']['args']}"}})
    elif MODE == "nonsense":
        send({"jsonrpc": "2.0", "id": mid, "result": {"answer": "yes please", "blocked": False, "errors": []}})
    elif MODE == "garbage":
        sys.stdout.write("this is not json\n")
        sys.stdout.flush()
    elif MODE == "hang":
        continue  # never answers
    elif MODE == "exit":
        sys.exit(7)
    elif MODE == "rewrite":
        send({"jsonrpc": "2.0", "id": mid, "result": {"answer": {"input": {"command": "echo safe"}}, "blocked": False,
                                                      "errors": []}})
    elif MODE == "ui":
        send({"jsonrpc": "2.0", "id": 900, "method": "ui.confirm", "params": {"title": "t", "message": "ok?"}})
        send({"jsonrpc": "2.0", "method": "ui.notify", "params": {"message": "asked", "level": "warning"}})
        send({"jsonrpc": "2.0", "method": "session.sendMessage", "params": {"message": {"customType": "x", "content": "c",
                                                                                     "display": True}}})
        send({"jsonrpc": "2.0", "method": "session.appendEntry", "params": {"customType": "e", "data": {"n": 1}}})
        reply = json.loads(sys.stdin.readline())
        log(reply)
        ok = reply.get("result") is True
        send({"jsonrpc": "2.0", "id": mid, "result": {"answer": None if ok else {"block": True, "reason": "said no"},
                                                      "blocked": not ok, "errors": []}})
