"""What the hosts share: one adapter shape and one install machinery.

``adapter`` (the event loop and answer policy every host adapter runs, Claude Code's included),
``gate`` (a tool call through ``pre_tool`` and the permission hooks), ``output`` (a tool result
through ``pre_tool_output``), ``shape`` (the deny for a gating event whose tool call is malformed),
``jsonconfig`` (planned, atomic edits of a host's config files: ``FileChange``, ``ConfigEdit``,
``run_plan``, the dry-run diff and backups), ``installer`` (a JSON hooks file per scope),
``tomlconfig`` (TOML files read and written keeping the user's text), ``extension`` (a plugin file
of ours per scope: OpenCode, pi, oh-my-pi) and ``command`` (the per-event command used until
``agent_hooks_core.transports.process`` is available). Standard library only (tomlkit where TOML is
edited).
"""
