"""git_checkpoint: stash the code state at each turn so a branch can restore it (seed 004, pi).

``turn_start`` records ``git stash create`` (a commit of the working tree that leaves the tree
alone); before the session is branched (``pre_session_fork``) it offers to apply the checkpoint of
the turn being branched from; ``agent_end`` forgets them. Git runs through ``ctx.exec`` in the
host's working directory.
"""

from __future__ import annotations

import weakref

from agent_hooks_core import hookimpl

RESTORE = "Yes, restore code to that point"
KEEP = "No, keep current code"

#: turn index -> stash commit, per runtime (one agent session)
_checkpoints: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def checkpoints(ctx) -> dict[int, str]:
    return _checkpoints.setdefault(ctx.runtime, {})


@hookimpl
def turn_start(event, ctx):
    result = ctx.exec("git", ["stash", "create"])
    ref = result.stdout.strip()
    if result.code == 0 and ref:
        checkpoints(ctx)[event.turn_index] = ref


@hookimpl
def pre_session_fork(event, ctx):
    ref = checkpoints(ctx).get(event.target_turn_index)
    if not ref:
        return None
    choice = ctx.ui.select("Restore code state?", [RESTORE, KEEP])
    if choice and choice.startswith("Yes"):
        ctx.exec("git", ["stash", "apply", ref])
        ctx.ui.notify("Code restored to checkpoint", "info")
    return None


@hookimpl
def agent_end(event, ctx):
    checkpoints(ctx).clear()
