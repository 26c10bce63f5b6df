"""A scripted fake model server on 127.0.0.1 for the real-agent tests.

The script is a list of turns; each model request the agent sends gets the next turn::

    from tests.hosts.fakemodel import FakeModel, say, tool_call

    with FakeModel([tool_call("bash", {"command": "rm -rf ~"}), say("done")]) as model:
        run_the_agent(base_url=model.base_url)           # http://127.0.0.1:PORT/v1
        assert "rm-broad" in model.tool_results()[0]      # what the agent sent back to the model

``turn.before`` (a callable taking the request body) runs when the request for that turn arrives,
before the answer is sent: a test uses it to act mid-session (kill a process, touch a file).
When the script is exhausted every further request is answered ``say(EXHAUSTED)``.

Protocols: :mod:`.openai_chat` (OpenAI chat completions, SSE streaming, as pi's and omp's
``openai-completions`` provider speak it). Other wire formats (Responses API, Gemini) add a
module beside it with a handler class and reuse :class:`FakeModel` and the turns.
"""

from __future__ import annotations

from .script import EXHAUSTED, FakeModel, Turn, say, tool_call

__all__ = ["EXHAUSTED", "FakeModel", "Turn", "say", "tool_call"]
