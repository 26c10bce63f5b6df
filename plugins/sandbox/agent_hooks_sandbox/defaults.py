"""The sandbox's defaults, as plain data (the hook path reads them without pydantic)."""

from __future__ import annotations

#: the project root (from the event's working directory, found the way agent-hooks finds it)
PROJECT = "{project}"

#: what a sandboxed command may write besides the private /tmp
WRITABLE = [PROJECT]

#: inside a writable root, still read-only: what runs code for the user outside the sandbox later
READ_ONLY = ["{project}/.git/hooks", "{project}/.git/config"]

#: credential stores: an empty read-only directory is mounted over each one that exists, /dev/null
#: over a file (unreadable there: bubblewrap mounts it nodev)
HIDDEN = [
    "~/.ssh", "~/.gnupg", "~/.aws", "~/.azure", "~/.config/gcloud", "~/.config/gh", "~/.config/hub",
    "~/.config/doctl", "~/.oci", "~/.kube", "~/.docker/config.json", "~/.netrc", "~/.pgpass", "~/.my.cnf",
    "~/.git-credentials", "~/.npmrc", "~/.pypirc", "~/.cargo/credentials.toml", "~/.cargo/credentials",
    "~/.gem/credentials", "~/.terraform.d/credentials.tfrc.json", "~/.config/op", "~/.password-store",
    "~/.local/share/keyrings", "~/.vault-token", "~/.fly", "~/.config/heroku", "~/.netlify",
    "~/.config/vercel", "~/.mozilla", "~/.config/google-chrome", "~/.config/chromium",
    "~/.config/BraveSoftware", "~/.config/microsoft-edge", "~/snap/firefox",
    # sockets that run code outside the sandbox (a Unix socket is reachable without a network): the
    # container engines (root-equivalent) and the users' runtime directories, where the D-Bus session
    # bus (systemd-run --user), ssh-agent, gpg-agent and rootless engines listen
    "/run/docker.sock", "/var/run/docker.sock", "/run/podman", "/run/containerd", "/run/user",
]

#: the control-plane kinds that are hidden (site-packages, kind "environment", stays readable:
#: the sandboxed command may run Python from this environment)
HIDDEN_KINDS = ("settings", "organisation", "trust", "hooks", "run", "host-config")

#: environment variables removed inside the sandbox: names matching one of these (shell globs)
SECRET_ENV_PATTERNS = ("*TOKEN*", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*API_KEY*", "*APIKEY*", "*ACCESS_KEY*",
                       "*PRIVATE_KEY*", "*CREDENTIAL*", "*SESSION_KEY*", "*_AUTH", "*AUTH_*", "*COOKIE*")
#: well-known secret-bearing names without those words
SECRET_ENV_NAMES = ("AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "GH_TOKEN", "GITHUB_TOKEN", "NPM_TOKEN",
                    "PGPASSWORD", "MYSQL_PWD", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "DOCKER_AUTH_CONFIG",
                    "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
                    "GOOGLE_APPLICATION_CREDENTIALS", "AZURE_CLIENT_SECRET", "HF_TOKEN", "VAULT_TOKEN",
                    "AGENT_HOOKS_SERVE_TOKEN")
#: names that carry one of the words but no secret
KEEP_ENV = ("XAUTHORITY",)

#: tools whose `command` argument is a shell command (the guard's list; host tool names, any case)
SHELL_TOOLS = ["bash", "shell", "shell_exec", "run_command", "run_shell_command", "exec_command",
               "execute_command", "terminal", "local_shell"]
#: shell tools whose command is PowerShell: bubblewrap cannot wrap it in the host's shell syntax
POWERSHELL_TOOLS = ["powershell", "pwsh", "run_powershell"]
COMMAND_KEYS = ("command", "cmd", "script")

#: every setting and its default (config.SandboxConfig mirrors this)
DEFAULTS: dict[str, object] = {
    "fallback": "deny",
    "network": "off",
    "writable": WRITABLE,
    "hidden": HIDDEN,
    "read_only": READ_ONLY,
    "exceptions": [],
    "unset_env": [],
    "keep_env": [],
    "shell": "/bin/bash",
    "bwrap": "bwrap",
    "shell_tools": SHELL_TOOLS,
}
