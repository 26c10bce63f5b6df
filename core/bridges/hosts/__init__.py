"""The first-party hosts: one module per host, each a default plugin whose ``register_hosts``
returns that host's :class:`~agent_hooks_core.bridges.record.Host` record.

The registry (:mod:`agent_hooks_core.bridges.registry`) registers every module of this package, in
name order, before the ``agent_hooks.hosts`` entry points of installed distributions. A module here
imports only the standard library and the record: collecting all of them is cheap.
"""
