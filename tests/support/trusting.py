"""Trusting the user hook files of the test's AGENT_HOOKS_HOME, as a person would with `agenthooks trust`."""

from __future__ import annotations

from agent_hooks_core import trust
from agent_hooks_core.settings import load_settings


def trust_user_hooks() -> list[trust.TrustItem]:
    return trust.trust_user(load_settings())
