"""The guard's defaults, as plain data (no pydantic: the hook path reads them without it).

``config.GuardConfig`` uses these as its field defaults; ``agenthooks`` shows them with
``agenthooks plugins info guard``.
"""

from __future__ import annotations

#: rule id -> what it blocks (ids are what `disable_rules` takes and what reasons end with)
RULES: dict[str, str] = {
    "rm-broad": "recursive rm of /, ~, $HOME, the project directory, a top-level directory or a glob of one",
    "find-delete": "find -delete / -exec rm over /, ~ or a top-level directory (or the project without a filter)",
    "sudo": "privilege escalation: sudo, doas, su, pkexec, run0",
    "chmod-777": "chmod that makes files world-writable (777, 666, o+w, a+rwx)",
    "pipe-to-shell": "downloaded or decoded text run by a shell (curl ... | sh, sh -c \"$(curl ...)\", bash <(wget ...))",
    "mkfs": "formatting a filesystem (mkfs*, mke2fs, mkswap, wipefs)",
    "device-write": "writing to a device: dd of=/dev/sda, > /dev/nvme0n1, shred /dev/...",
    "fork-bomb": "fork bombs (:(){ :|:& };: and its renamings)",
    "force-push": "git push --force / +ref / --delete / --mirror to a protected branch",
    "protected-write": "writing, moving or deleting a protected path (.env, .git/, SSH keys, credentials)",
    "protected-read": "reading a secret file (.env, private keys, credential files)",
    "url": "fetching a denied URL (cloud metadata, paste/exfiltration sites, file:, embedded credentials)",
    "nesting": "commands nested too deeply to analyse (bash -c inside bash -c ... 24 levels)",
    "deny-commands": "a command matching one of your `deny_commands` patterns",
}

PROTECTED_BRANCHES = ["main", "master"]

_KEYS = ["id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "*.pem", "*.key", "*.p12", "*.pfx", "*.jks",
         "*.keystore"]
_CREDENTIALS = [".netrc", ".npmrc", ".pypirc", ".git-credentials", ".aws/credentials", ".aws/config",
                ".docker/config.json", ".kube/config", "~/.gnupg/", "~/.config/gcloud/", "credentials.json",
                ".htpasswd"]

PROTECT_WRITE = [".env", ".env.*", ".git/", "~/.ssh/", *_KEYS, *_CREDENTIALS,
                 "~/.bashrc", "~/.bash_profile", "~/.zshrc", "~/.profile"]
PROTECT_READ = [".env", ".env.*", "~/.ssh/", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "*.key", "*.p12",
                "*.pfx", *_CREDENTIALS]
_ENV_TEMPLATES = [".env.example", ".env.sample", ".env.template", ".env.dist"]
ALLOW_WRITE = list(_ENV_TEMPLATES)
ALLOW_READ = [*_ENV_TEMPLATES, "*.pub", "~/.ssh/known_hosts"]

URL_DENY = [
    # cloud instance metadata (credentials of the machine)
    "169.254.169.254", "fd00:ec2::254", "100.100.100.200", "metadata.google.internal", "metadata.goog",
    # paste, request-capture and tunnel services: where exfiltrated data goes
    "pastebin.com", "paste.ee", "transfer.sh", "webhook.site", "requestbin.com", "pipedream.net",
    "ngrok.io", "ngrok-free.app", "interact.sh", "oast.fun", "burpcollaborator.net",
]
URL_SCHEMES = ["http", "https"]

SHELL_TOOLS = ["bash", "shell", "shell_exec", "run_command", "run_shell_command", "exec_command",
               "execute_command", "terminal"]
WRITE_TOOLS = ["write", "edit", "multiedit", "write_file", "file_edit", "edit_file", "create_file",
               "notebookedit", "replace", "delete_file"]
READ_TOOLS = ["read", "read_file", "file_head", "file_tail", "file_lines", "file_grep", "read_many_files",
              "view"]
FETCH_TOOLS = ["fetch_url", "fetch", "web_fetch", "webfetch", "http_request"]
#: hidden from sub-agents (chibi's recursion_depth > 0): they run with nobody to ask
SUBAGENT_EXCLUDE_TOOLS = [*SHELL_TOOLS, *WRITE_TOOLS]

COMMAND_KEYS = ("command", "cmd", "script")
PATH_KEYS = ("path", "file_path", "filename", "file", "notebook_path", "target_file")
URL_KEYS = ("url", "uri")

#: every setting and its default (the pydantic model mirrors this)
DEFAULTS: dict[str, object] = {
    "mode": "enforce",
    "ask": True,
    "disable_rules": [],
    "deny_commands": [],
    "allow_commands": [],
    "protected_branches": PROTECTED_BRANCHES,
    "protect_write": PROTECT_WRITE,
    "protect_read": PROTECT_READ,
    "allow_write": ALLOW_WRITE,
    "allow_read": ALLOW_READ,
    "url_deny": URL_DENY,
    "url_allow": [],
    "url_schemes": URL_SCHEMES,
    "deny_url_credentials": True,
    "exclude_tools": [],
    "subagent_exclude_tools": SUBAGENT_EXCLUDE_TOOLS,
    "redact_output": True,
    "redact_patterns": [],
    "shell_tools": SHELL_TOOLS,
    "write_tools": WRITE_TOOLS,
    "read_tools": READ_TOOLS,
    "fetch_tools": FETCH_TOOLS,
}
