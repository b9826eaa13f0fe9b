# Small assertion helpers shared by the CLI tests (host) and the lab tests
# (inside the VM). Source it, call `run CMD...` then `expect ...`, and end
# with `summary`, which prints "N passed, M failed" and sets the exit code.
passed=0
failed=0
current=""
_scratch=$(mktemp -d)
trap 'rm -rf "$_scratch"' EXIT

# case NAME: starts a named group of checks.
case_() { current=$1; echo "-- $current"; }

# run CMD...: runs it, keeping stdout in $out, stderr in $err, exit code in $rc.
run() {
  "$@" >"$_scratch/out" 2>"$_scratch/err"
  rc=$?
  out=$(cat "$_scratch/out")
  err=$(cat "$_scratch/err")
}

ok()   { passed=$((passed + 1)); echo "   ok   $*"; }
bad()  {
  failed=$((failed + 1)); echo "   FAIL $current: $*"
  echo "        rc=$rc"; echo "        stdout: ${out:0:2000}" | head -20; echo "        stderr: ${err:0:2000}" | head -20
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
  if "$@" 2>"$_scratch/why"; then ok "$d"; return; fi
  bad "$d"
  tail -n 5 "$_scratch/why" | cut -c1-600 | sed 's/^/        why: /'
}

# eventually SECONDS CMD...: CMD succeeds within SECONDS (polled every 0.2 s).
eventually() {
  local limit=$1 i; shift
  for ((i = 0; i < limit * 5; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  return 1
}

summary() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
