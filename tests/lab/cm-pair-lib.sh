# tests/lab/cm_pair (built into the build dir's tests/) as the lab's cases
# start it (30-netlink, 27-doctor): it holds rdma_cm IDs until its stdin
# reaches EOF. cmp_start gives it a fifo as stdin whose writing end this
# shell holds (cmp_go closes it: the program disconnects, destroys all and
# exits), and its stdout on a second fifo that cmp_line reads line by line.
# No step waits for a time: a wait ends on the program's line or its exit,
# the limits (120 s) only keep a broken run from hanging the shard.
# This shell holds the stdout fifo read-write: a fifo with no writer reads
# as EOF, and a program slow to start on a loaded host has not opened its
# end yet when the first line is awaited (lab-1's 27-doctor once read
# "nothing" so, 2026-11-27). So EOF cannot mean that it ended: cmp_line
# asks whether the program still runs between reads.
# Sourced by a case file ($q, $_scratch and tests/lib.sh set).
cm_pair_bin=$(dirname "$q")/tests/cm_pair
_cmp_fds=()

# cmp_start NAME ARGS...: starts `cm_pair ARGS`. Sets NAME_pid (cm_pair's
# own pid), NAME_in and NAME_out (this shell's ends of its stdin and
# stdout) and NAME_err (the file of its stderr).
cmp_start() {
  local name=$1 dir fd_in fd_out hold
  shift
  dir=$(mktemp -d "$_scratch/cm_pair.XXXXXX")
  mkfifo "$dir/in" "$dir/out"
  # No open here waits for the other end (a program that never starts must
  # not hang the shard): both fifos are opened read-write, stdin's (this
  # shell is its writer until cmp_go) and stdout's (the program's open
  # finds a reader, and a read never sees EOF before the program opened
  # its end).
  exec {fd_in}<>"$dir/in" {fd_out}<>"$dir/out"
  # The subshell closes this shell's ends of every instance's fifos (they
  # would hold an earlier instance's stdin open) and becomes cm_pair.
  (
    for fd in "${_cmp_fds[@]}" "$fd_in" "$fd_out"; do eval "exec $fd>&-"; done
    exec "$cm_pair_bin" "$@" <"$dir/in" >"$dir/out" 2>"$dir/err"
  ) &
  printf -v "${name}_pid" %s "$!"
  printf -v "${name}_err" %s "$dir/err"
  printf -v "${name}_in" %s "$fd_in"
  printf -v "${name}_out" %s "$fd_out"
  _cmp_fds+=("$fd_in" "$fd_out")
}

# cmp_line NAME: the next line cm_pair NAME printed, in $cmp_got. Fails
# (cmp_got empty) when it ended without one, or after 120 s. (Its lines are
# written whole, one write each: a read that waits a second at a time
# never splits one.)
cmp_line() {
  local fd=${1}_out pid=${1}_pid i
  cmp_got=""
  [ -n "${!fd:-}" ] || return 1
  for ((i = 0; i < 120; i++)); do
    IFS= read -r -t 1 -u "${!fd}" cmp_got && return 0
    cmp_got=""
    if ! _cmp_running "${!pid}"; then  # ended: what it wrote before is there
      IFS= read -r -t 0.2 -u "${!fd}" cmp_got && return 0
      cmp_got=""
      return 1
    fi
  done
  return 1
}

# cmp_expect NAME LINE: its next line is LINE; else says what came instead
# (and what cm_pair wrote to stderr) in $cmp_why.
cmp_expect() {
  local err=${1}_err
  if cmp_line "$1" && [ "$cmp_got" = "$2" ]; then return 0; fi
  cmp_why="cm_pair $1: expected '$2', got '${cmp_got:-nothing (it ended, or 120 s passed)}'; its stderr: '$(cat "${!err:-/dev/null}")'"
  return 1
}

# _cmp_running PID: PID exists and is not a zombie.
_cmp_running() {
  local s
  s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  s=${s##*) }
  [ "${s%% *}" != Z ]
}

_cmp_gone() { ! _cmp_running "$1"; }

# cmp_go NAME...: closes their stdins (all first, so they leave side by
# side), waits for each; NAME_rc is its exit status (137: it had not left
# within 120 s and was killed).
cmp_go() {
  local name v pid fd
  for name in "$@"; do
    v=${name}_in
    if [ -n "${!v:-}" ]; then
      eval "exec ${!v}>&-"
      _cmp_forget "${!v}"
      printf -v "$v" %s ""
    fi
  done
  for name in "$@"; do
    v=${name}_pid; pid=${!v:-}
    [ -n "$pid" ] || continue
    eventually 120 _cmp_gone "$pid" || kill -9 "$pid" 2>/dev/null
    wait "$pid"
    printf -v "${name}_rc" %s "$?"
    printf -v "$v" %s ""
    v=${name}_out; fd=${!v:-}
    if [ -n "$fd" ]; then
      eval "exec $fd<&-"
      _cmp_forget "$fd"
      printf -v "$v" %s ""
    fi
  done
}
_cmp_forget() {
  local f keep=()
  for f in "${_cmp_fds[@]}"; do [ "$f" = "$1" ] || keep+=("$f"); done
  _cmp_fds=("${keep[@]}")
}
