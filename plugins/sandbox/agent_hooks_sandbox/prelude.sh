# agent-hooks-sandbox: the first process inside the sandbox (run by the system's sh as pid 1).
# It unsets every secret-named variable of the environment the command really gets (the host's
# shell's, which the hook never sees), then execs the command, so no process inside still holds
# the secrets in its /proc/PID/environ.
#
# $1: names to keep (NAME|NAME), $2: secret names and patterns (NAME|*WORD*), both shell case
# patterns made by agent_hooks_sandbox.policy from validated names; $3: the shell that runs the
# command in $4, or empty: then $4... is the command's argv.
#
# The names come from `export -p` (a builtin), written to the sandbox's own /dev and read back
# with `.` while `export` is an alias of a function that unsets the secret-named of its
# arguments: the shell's own parser splits its own quoting, so a value holding newlines or quotes
# yields no name of its own. No command substitution and no `read` loop (dash reads one byte per
# system call). The list is emptied before the command starts.
eval "_ahs_unset() { for w; do v=\${w%%=*}; case \"\$v\" in ''|[0-9]*|*[!A-Za-z0-9_]*) ;; $1) ;; $2) unset \"\$v\" ;; esac; done; }"
alias export=_ahs_unset
command export -p > /dev/.agent-hooks-env
. /dev/.agent-hooks-env
unalias export
unset -f _ahs_unset
unset w v
: > /dev/.agent-hooks-env
if [ -n "$3" ]; then
    shift 2
    exec "$1" -c "$2" "${1##*/}"
fi
shift 3
exec "$@"
