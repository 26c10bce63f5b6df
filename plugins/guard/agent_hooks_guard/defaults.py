"""The guard's defaults, as plain data (no pydantic: the hook path reads them without it).

``config.GuardConfig`` uses these as its field defaults; ``agenthooks`` shows them with
``agenthooks plugins info guard``.
"""

from __future__ import annotations

#: rule id -> what it blocks (ids are what `disable_rules` takes and what reasons end with)
RULES: dict[str, str] = {
    "rm-broad": "a recursive delete or a move-away of /, ~, the project directory, a top-level directory or a glob "
                "of one, by any command (rm -rf, mv, rsync --delete, tar --remove-files, zip -m, shutil.rmtree ...)",
    "chmod-broad": "a recursive chmod/chown of /, ~ or a top-level directory",
    "control-plane": "changing what decides agent-hooks' policy (settings, trust store, hook files, its Python "
                     "environment, host configurations it installed) by any command, or running agent-hooks' own "
                     "CLI in any spelling to weaken it (plugins disable, trust, uninstall ...)",
    "find-delete": "find -delete / -exec rm over /, ~ or a top-level directory (or the project without a filter)",
    "sudo": "privilege escalation: sudo, doas, su, pkexec, run0",
    "chmod-777": "chmod that makes files world-writable (777, 666, o+w, a+rwx)",
    "setuid": "chmod that makes a program set-uid or set-gid (u+s, 4755)",
    "schedule": "a command handed to a systemd timer (crontab and at: the system pack's rules of the same id)",
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
    "secret-exfiltration": "the environment or a secret file sent over the network (env | curl, tar ~/.ssh | nc)",
    "agent-config": "writing agent-hooks' settings or trust store, or a host's hook configuration (switching the "
                    "guard off)",
    "dynamic-exec": "text built at run time and executed (eval \"$(...)\", exec(b64decode(...)), $(cmd) as a "
                    "command name): decided by policy, never analysed",
    "too-large": "a command over `max_command_bytes`, over 1,000 simple commands or over a decision's work "
                 "budget: only a prefix is analysed, and the command is blocked",
    "pack-error": "an installed rule pack (entry point agent_hooks_guard.packs) failed to load: commands fail closed",
    "unreadable-command": "a shell tool's command that is neither text nor a list of words (fails closed)",
    "powershell": "PowerShell: Remove-Item -Recurse of a broad path, Format-Volume, Stop-Computer, iex (iwr ...)",
}

PROTECTED_BRANCHES = ["main", "master"]
#: packs that are off unless `enable_packs` names them (judgement calls decided the strict way)
OFF_BY_DEFAULT = ("strict",)

_KEYS = ["id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "*.pem", "*.key", "*.p12", "*.pfx", "*.jks",
         "*.keystore"]
_CREDENTIALS = [".netrc", ".npmrc", ".pypirc", ".git-credentials", ".aws/credentials", ".aws/config",
                ".docker/config.json", ".kube/config", "~/.gnupg/", "~/.config/gcloud/", "credentials.json",
                ".htpasswd", ".pgpass", ".my.cnf", ".vault-token", "~/.config/gh/hosts.yml", "~/.config/glab-cli/",
                "~/.config/hub", "~/.azure/", "~/.terraform.d/credentials.tfrc.json", "~/.password-store/",
                "~/.local/share/keyrings/"]

#: system files and directories: accounts, sudoers, boot, binaries, cron
_SYSTEM = ["/etc/", "/boot/", "/bin/", "/sbin/", "/usr/bin/", "/usr/sbin/", "/usr/lib/", "/lib/", "/lib64/",
           "/var/spool/cron/", "/System/", "/Library/LaunchDaemons/", "/var/log/", "/proc/sysrq-trigger",
           "/proc/sys/", "/sys/"]
#: files a shell or the desktop runs at login: writing one is persistence
_STARTUP = ["~/.bashrc", "~/.bash_profile", "~/.bash_login", "~/.bash_logout", "~/.zshrc", "~/.zshenv", "~/.zprofile",
            "~/.zlogin", "~/.profile", "~/.config/fish/config.fish", "~/.config/autostart/", "~/.config/systemd/user/",
            "~/Library/LaunchAgents/"]
#: where secrets are that no file name says: process environments, password hashes, browser stores
_SECRET_PLACES = ["/proc/*/environ", "/etc/shadow", "/etc/gshadow", "/etc/master.passwd", "~/.aws/",
                  "logins.json", "key4.db", "cookies.sqlite", "Login Data", "Cookies", "~/.mozilla/",
                  "~/.config/google-chrome/", "~/.config/chromium/", "~/.config/BraveSoftware/",
                  "~/Library/Application Support/Google/Chrome/", "~/Library/Keychains/"]
PROTECT_WRITE = [".env", ".env.*", ".git/", "~/.ssh/", *_KEYS, *_CREDENTIALS, *_STARTUP, *_SYSTEM]
PROTECT_READ = [".env", ".env.*", "~/.ssh/", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "*.key", "*.p12",
                "*.pfx", *_CREDENTIALS, *_SECRET_PLACES]
#: templates (and copies of them: `.env.sample.bak`) hold no secrets
_ENV_TEMPLATES = [".env.example", ".env.sample", ".env.template", ".env.dist", ".env.example.*", ".env.sample.*",
                  ".env.template.*", ".env.dist.*"]
#: agent-hooks' own settings and the hosts' hook configurations: an agent that writes one of these can
#: switch the guard off in two tool calls (the user's settings.toml and trust.json are added at run time,
#: wherever AGENT_HOOKS_HOME or the platform puts them)
AGENT_CONFIG = [".agent-hooks/*.toml", ".claude/settings*.json", ".codex/hooks.json", ".codex/config.toml",
                ".gemini/settings.json", ".cursor/hooks.json", ".pi/", ".omp/", ".opencode/plugin/",
                ".opencode/plugins/", ".config/opencode/plugin/", ".config/opencode/plugins/"]
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
               "execute_command", "terminal", "local_shell", "powershell", "pwsh", "run_powershell"]
WRITE_TOOLS = ["write", "edit", "multiedit", "write_file", "file_edit", "edit_file", "create_file",
               "notebookedit", "replace", "delete_file", "apply_patch"]
READ_TOOLS = ["read", "read_file", "file_head", "file_tail", "file_lines", "file_grep", "read_many_files",
              "view"]
FETCH_TOOLS = ["fetch_url", "fetch", "web_fetch", "webfetch", "http_request"]
#: hidden from sub-agents (chibi's recursion_depth > 0): they run with nobody to ask
SUBAGENT_EXCLUDE_TOOLS = [*SHELL_TOOLS, *WRITE_TOOLS]

COMMAND_KEYS = ("command", "cmd", "script", "argv")
#: where apply_patch-style tools carry the patch text
PATCH_KEYS = ("input", "patch", "diff")
#: commands larger than this are blocked as too-large after analysing this much of them
MAX_COMMAND_BYTES = 65536
PATH_KEYS = ("path", "file_path", "filename", "file", "notebook_path", "target_file")
URL_KEYS = ("url", "uri")

#: every setting and its default (the pydantic model mirrors this)
DEFAULTS: dict[str, object] = {
    "mode": "enforce",
    "ask": True,
    "disable_rules": [],
    "disable_packs": [],
    "enable_packs": [],
    "packs": {},
    "max_command_bytes": MAX_COMMAND_BYTES,
    "deny_commands": [],
    "allow_commands": [],
    "protected_branches": PROTECTED_BRANCHES,
    "protect_write": PROTECT_WRITE,
    "protect_read": PROTECT_READ,
    "allow_write": ALLOW_WRITE,
    "allow_read": ALLOW_READ,
    "protect_agent_config": AGENT_CONFIG,
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
