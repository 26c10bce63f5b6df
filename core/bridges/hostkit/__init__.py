"""What the command-hook hosts (Codex, Gemini CLI, Cursor) and OpenCode share.

``gate`` (a tool call through ``pre_tool`` and the permission hooks), ``output`` (a tool result
through ``pre_tool_output``), ``shape`` (the deny for a gating event whose tool call is malformed), ``adapter`` (a base for stateless host adapters), ``jsonconfig``
(planned, atomic edits of a host's JSON config file) and ``command`` (the per-event command used
until ``agent_hooks_core.transports.process`` is available). Standard library only.
"""
