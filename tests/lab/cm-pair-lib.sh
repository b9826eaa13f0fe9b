# tests/lab/cm_pair (built into the build dir's tests/) as the lab's cases
# start it (30-netlink, 27-doctor): it holds rdma_cm IDs until its stdin
# reaches EOF. cmp_start gives it a fifo as stdin whose writing end this
# shell holds (cmp_go closes it: the program disconnects, destroys all and
# exits), and its stdout on a second fifo that cmp_line reads line by line.
# No step waits for a time: a wait ends on the program's line or its exit,
# the limits (120 s) only keep a broken run from hanging the shard.
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
  # not hang the shard): stdin's fifo is opened read-write (this shell is
  # its writer until cmp_go), stdout's first read-write too, so that the
  # program's open finds a reader; once this shell has it read-only, the
  # read-write end goes, and the program is its only writer (a line read
  # then ends at the program's exit).
  exec {fd_in}<>"$dir/in" {hold}<>"$dir/out"
  # The subshell closes this shell's ends of every instance's fifos (they
  # would hold an earlier instance's stdin open) and becomes cm_pair.
  (
    for fd in "${_cmp_fds[@]}" "$fd_in" "$hold"; do eval "exec $fd>&-"; done
    exec "$cm_pair_bin" "$@" <"$dir/in" >"$dir/out" 2>"$dir/err"
  ) &
  printf -v "${name}_pid" %s "$!"
  printf -v "${name}_err" %s "$dir/err"
  exec {fd_out}<"$dir/out"
  eval "exec $hold>&-"
  printf -v "${name}_in" %s "$fd_in"
  printf -v "${name}_out" %s "$fd_out"
  _cmp_fds+=("$fd_in" "$fd_out")
}

# cmp_line NAME: the next line cm_pair NAME printed, in $cmp_got. Fails
# (cmp_got empty) when it ended without one, or after 120 s.
cmp_line() {
  local fd=${1}_out
  cmp_got=""
  [ -n "${!fd:-}" ] || return 1
  IFS= read -r -t 120 -u "${!fd}" cmp_got
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
