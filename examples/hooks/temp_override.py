"""temp_override: set the temperature by context (seed 000/001, chibi's temperature override).

The answer is a JSON merge patch on the request body: only ``temperature`` changes.
"""

from __future__ import annotations

from agent_hooks_core import hookimpl

TEMPERATURES = {"coding": 0.1, "creative": 1.2}


@hookimpl
def pre_api_request(event):
    temperature = TEMPERATURES.get(event.context_name or "")
    if temperature is None:
        return None
    return {"request_body": {"temperature": temperature}}
