# Small assertion helpers shared by the CLI tests (host) and the lab tests
# (inside the VM). Source it, call `run CMD...` then `expect ...`, and end
# with `summary`, which lists the failed and skipped checks by name (again
# at the end, where CI's excerpt of a long run shows them), prints
# "N passed, M failed, K skipped" and sets the exit code.
passed=0
failed=0
skipped=0
skipped_names=()
failed_names=()
current=""
_scratch=$(mktemp -d)
out='' err=''  # a check before the first run has none
trap 'rm -rf "$_scratch"' EXIT

# case NAME: starts a named group of checks; the group before it gets its
# time in seconds (what the lab's budget is made of).
_case_started=$SECONDS
case_() {
  [ -n "$current" ] && echo "   ($((SECONDS - _case_started)) s)"
  _case_started=$SECONDS
  current=$1; echo "-- $current"
}

# A CI run once failed 384 checks in a row with "exit code 1, stderr 0
# lines": every redirection into the scratch directory failed (it was gone,
# or its disk full). run makes it again if it is gone, and the first failed
# check says either, so the checks report their own results, not the
# machine's. (Builtins only on the way of a passing check: a process start
# is what the emulated lab spends its CPU on.)
_scratch_said=''
_scratch_gone() {
  mkdir -p "$_scratch"
  [ -n "$_scratch_said" ] && return
  _scratch_said=1
  bad "the tests' scratch directory $_scratch vanished (something else on this machine removed it); made again"
}
_disk_note() {  # once, from bad: a full disk is the machine's fault, not the check's
  local free
  [ -n "$_scratch_said" ] && return
  free=$(df -Pk "$_scratch" 2>/dev/null | awk 'NR == 2 {print $4}')
  if [ -n "$free" ] && [ "$free" -lt 10240 ]; then
    _scratch_said=1
    echo "        NOTE: the disk of $_scratch has ${free} KiB free: this and later checks may fail for want of room"
  fi
}

# run CMD...: runs it, keeping stdout in $out, stderr in $err, exit code in $rc.
run() {
  [ -d "$_scratch" ] || _scratch_gone
  "$@" >"$_scratch/out" 2>"$_scratch/err"
  rc=$?
  _read_file out "$_scratch/out"
  _read_file err "$_scratch/err"
}
# _read_file VAR FILE: VAR=$(cat FILE) without starting cat (a process start
# is what the emulated lab spends its CPU on): the file's text, trailing
# newlines removed. A file with a NUL byte goes through cat, as before.
_read_file() {
  local _text=''
  if IFS= read -r -d '' _text <"$2"; then
    _text=$(cat "$2")
  else
    _text=${_text%"${_text##*[!$'\n']}"}
  fi
  printf -v "$1" '%s' "$_text"
}

# LAB_CLOCK=1 in the environment: each ok and FAIL line ends with the
# seconds since its case began ("[+12 s]"), to find where a case spends them.
# (No subshell: a fork costs the emulated guest.)
_clock=''
ok()   { passed=$((passed + 1)); [ -n "${LAB_CLOCK:-}" ] && _clock=" [+$((SECONDS - _case_started)) s]"; echo "   ok   $*$_clock"; }
# skip WHY: a check this host cannot make, counted and named in the summary.
skip() { skipped=$((skipped + 1)); skipped_names+=("$current: $*"); echo "   skip $*"; }
bad()  {
  failed=$((failed + 1)); failed_names+=("$current: $*"); [ -n "${LAB_CLOCK:-}" ] && _clock=" [+$((SECONDS - _case_started)) s]"; echo "   FAIL $current: $*$_clock"
  echo "        rc=${rc-}"; echo "        stdout: ${out:0:2000}" | head -20; echo "        stderr: ${err:0:2000}" | head -20
  _disk_note
}

# expect_rc N: the last run exited with N.
expect_rc() { if [ "$rc" -eq "$1" ]; then ok "exit code $1"; else bad "exit code $rc, expected $1"; fi; }
# expect_out_has TEXT / expect_err_has TEXT: fixed-string search.
expect_out_has() { if grep -qF -- "$1" <<<"$out"; then ok "stdout has '$1'"; else bad "stdout lacks '$1'"; fi; }
expect_err_has() { if grep -qF -- "$1" <<<"$err"; then ok "stderr has '$1'"; else bad "stderr lacks '$1'"; fi; }
# expect_err_lines N: stderr has exactly N lines.
expect_err_lines() {
  local n; n=$(printf '%s' "$err" | grep -c '')
  if [ "$n" -eq "$1" ]; then ok "stderr has $1 line(s)"; else bad "stderr has $n lines, expected $1"; fi
}
# expect_true DESC CMD...: CMD succeeds. On failure the last lines CMD wrote
# to stderr (e.g. a Python assertion) are shown under the FAIL line.
expect_true() {
  local d=$1; shift
  [ -d "$_scratch" ] || _scratch_gone
  if "$@" 2>"$_scratch/why"; then ok "$d"; return; fi
  bad "$d"
  tail -n 5 "$_scratch/why" | cut -c1-600 | sed 's/^/        why: /'
}

# jq_true ARGS...: jq -e ARGS (the input on stdin), its output dropped: for
# expect_true, whose log shows only what failed.
jq_true() { jq -e "$@" >/dev/null; }

# eventually SECONDS CMD...: CMD succeeds within SECONDS (polled every 0.2 s).
eventually() {
  local limit=$1 i; shift
  for ((i = 0; i < limit * 5; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  return 1
}

# has_rts_qps PID [N]: PID holds at least N (1) QPs in RTS, as the kernel's
# `rdma resource show qp` says (a poll, so not a start of the sanitised
# qpscope every time: `qp list` is checked by the cases themselves).
has_rts_qps() {
  rdma -j resource show qp |
    jq -e --argjson pid "$1" "[.[] | select(.pid == \$pid and .state == \"RTS\")] | length >= ${2:-1}" >/dev/null
}
# runs_traffic PID: a QP of PID in RTS whose send or receive PSN (a bw
# target only receives) moved between two reads of `rdma resource show qp`
# 0.2 s apart: its loop runs. A QP in RTS alone is not that: the handshake
# moves it to RTS and then still waits for the peer's "ready" (a signal
# there ends the command before its run began, so there is no partial
# report: a fresh-clone run once caught that).
_qp_psns() {
  rdma -j resource show qp |
    jq -c --argjson pid "$1" '[.[] | select(.pid == $pid and .state == "RTS") | [."sq-psn", ."rq-psn"]]'
}
runs_traffic() {
  local a b
  a=$(_qp_psns "$1") && [ "$a" != "[]" ] || return 1
  sleep 0.2
  b=$(_qp_psns "$1") && [ "$a" != "$b" ]
}
# signal_in_run SIGNAL PID STAMP [N]: once PID runs (N QPs in RTS and its
# PSNs moving, within 60 s), waits 1 s, sends SIGNAL and writes when
# (date +%s%N) to the file STAMP, so a bound is measured from the event,
# not from a start.
signal_in_run() {
  : >"$3"
  eventually 60 has_rts_qps "$2" "${4:-1}" || return 1
  eventually 60 runs_traffic "$2" || return 1
  sleep 1
  kill -"$1" "$2"
  date +%s%N >"$3"
}
# catches_interrupts PID: PID has its SIGINT and SIGTERM handlers in place
# (SigCgt bits 2 and 15 in /proc/PID/status): a signal now is the
# command's to handle, not the default's (exit 130).
catches_interrupts() {
  local m; m=$(awk '/^SigCgt:/ {print $2}' "/proc/$1/status" 2>/dev/null)
  [ -n "$m" ] && (( (16#$m & 0x4002) == 0x4002 ))
}
_not_running() { ! kill -0 "$1" 2>/dev/null; }
# run_interrupted SIGNAL CMD...: runs CMD in the background, sends SIGNAL
# once CMD caught the interrupts (within 60 s), and waits for it (120 s at
# most, then SIGKILL); $out, $err and $rc as run's.
run_interrupted() {
  local sig=$1 pid; shift
  "$@" >"$_scratch/out" 2>"$_scratch/err" &
  pid=$!
  if eventually 60 catches_interrupts "$pid"; then
    kill -"$sig" "$pid"
  else
    bad "$1 did not catch SIGINT/SIGTERM within 60 s"
  fi
  eventually 120 _not_running "$pid" || kill -9 "$pid" 2>/dev/null
  wait "$pid"; rc=$?
  _read_file out "$_scratch/out"
  _read_file err "$_scratch/err"
}
# ms_since_stamp STAMP: milliseconds since the time in STAMP (999999 if none).
ms_since_stamp() {
  local t; t=$(cat "$1" 2>/dev/null)
  if [ -n "$t" ]; then echo $(( ($(date +%s%N) - t) / 1000000 )); else echo 999999; fi
}

# no_qps_left: `rdma resource show qp` answers and lists no QP but the GSI
# ones (every rxe port has its QP1): an empty answer is no answer, not "none".
no_qps_left() {
  local qps
  qps=$(rdma resource show qp) || return 1
  grep -q "type GSI" <<<"$qps" || return 1
  ! grep -v "type GSI" <<<"$qps" | grep -q .
}
# listening PORT: something listens on TCP PORT (poll it with eventually
# instead of sleeping while a server starts: an order of events).
listening() {
  local l
  l=$(ss -Hltn "sport = :$1") && [ -n "$l" ]
}
# b_listening [PORT]: returns once host B (lab/qpscope-lab --hosts 2) has
# a server listening on TCP PORT (18615, the exchange's), so a client
# started next connects at once (under load B's server took over 7 s to
# listen, past a 2 s sleep). 100 s bounds only a server that never listens.
b_listening() {
  local port=${1:-18615}
  on-b timeout 100 sh -c "until ss -Hltn 'sport = :$port' | grep -q .; do sleep 0.1; done" ||
    bad "B's server did not listen on TCP $port within 100 s"
}
# not_listening PORT: ss answers, and nothing listens on TCP PORT.
not_listening() {
  local l
  l=$(ss -Hltn "sport = :$1") || return 1
  [ -z "$l" ]
}

summary() {
  local s
  for s in "${skipped_names[@]}"; do echo "   skipped: $s"; done
  for s in "${failed_names[@]}"; do echo "   failed: $s"; done
  echo "$passed passed, $failed failed, $skipped skipped"
  [ "$failed" -eq 0 ] && [ $((passed + failed)) -gt 0 ]
}

# find_promtool: the promtool that scripts/check unpacked beside the binary
# under test ($q's folder, tools/promtool: scripts/fetch-promtool, which
# does not install Debian's prometheus package and so starts no server),
# else one on PATH; nothing (status 1) when neither is there.
find_promtool() {
  local t
  t=$(dirname "$q")/tools/promtool
  if [ -x "$t" ]; then echo "$t"; return 0; fi
  command -v promtool
}
