# Lab cases: the shell side against a real device: "did you mean" for a
# device name wherever one is resolved, colour of a real table, and the
# completions' live values (devices, ports, held QPNs).
# Sourced by tests/lab/run-all with $q and $here set.

comp=$(dirname "$q")/completions
esc=$'\e['

case_ "shell: a mistyped device is named with the closest one"
run "$q" ports -d rxe9
expect_rc 2; expect_err_lines 1
expect_err_has "unknown device 'rxe9': did you mean 'rxe0'? devices on this host are rxe0"
run "$q" qp create -d rxe9
expect_rc 2; expect_err_lines 1; expect_err_has "unknown device 'rxe9': did you mean 'rxe0'?"
# The client stops on its own device before it connects: no server needed.
run timeout 60 "$q" ping-pong 127.0.0.1 -d rxe9 --timeout 10
expect_rc 2; expect_err_has "unknown device 'rxe9': did you mean 'rxe0'?"

case_ "shell: colour on a terminal or when asked, never in a pipe, with --color never or NO_COLOR"
run "$q" --color=always ports -d rxe0
expect_true "--color=always in a pipe: ANSI escapes" grep -qF "$esc" <<<"$out"
run "$q" ports -d rxe0
expect_rc 0
expect_true "auto in a pipe: none" bash -c '! grep -qF "$1" <<<"$2"' _ "$esc" "$out"
run script -qec "$q ports -d rxe0" /dev/null
expect_true "auto on a terminal: ANSI escapes" grep -qF "$esc" <<<"$out"
run env NO_COLOR=1 script -qec "$q ports -d rxe0" /dev/null
expect_out_has "rxe0"
expect_true "NO_COLOR on a terminal: none" bash -c '! grep -qF "$1" <<<"$2"' _ "$esc" "$out"
run script -qec "$q --color never ports -d rxe0" /dev/null
expect_out_has "rxe0"
expect_true "--color never on a terminal: none" bash -c '! grep -qF "$1" <<<"$2"' _ "$esc" "$out"

case_ "shell: --quiet drops ping-pong's progress lines on a terminal, never the report"
report=$(mktemp)
for quiet in "" "-q"; do
  "$q" ping-pong -d rxe0 --timeout 20 >/dev/null 2>&1 &
  server=$!
  # stderr on a terminal (script's), the report into a file
  run timeout 120 script -qec "$q $quiet ping-pong 127.0.0.1 -d rxe0 -s 2,64 -n 200 -w 10 --timeout 20 >$report" /dev/null
  wait "$server"
  expect_rc 0
  lines=$(grep -c "B: p50" <<<"$out")
  if [ -z "$quiet" ]; then
    expect_true "without -q: a progress line per size (got $lines)" test "$lines" -eq 2
  else
    expect_true "with -q: no progress line (got $lines)" test "$lines" -eq 0
  fi
  expect_true "the report is printed ${quiet:-without -q}" grep -q "P99.99" "$report"
done
rm -f "$report"

case_ "shell: completions offer this host's devices, ports and held QPNs"
complete_bash() {
  bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _qpscope
    printf "%s\n" "${COMPREPLY[@]}"' _ "$comp/qpscope.bash" "$@" | sort | xargs
}
run complete_bash "$q" ports -d ""
expect_true "bash: the devices are rxe0 (offered '$out')" test "$out" = rxe0
run complete_bash "$q" ports -d rxe0 -i ""
expect_true "bash: rxe0's ports are 1 (offered '$out')" test "$out" = 1
run "$q" --json qp create -d rxe0
expect_rc 0
qpn=$(jq -r '.qps[0].qpn.name' <<<"$out")
run complete_bash "$q" qp modify ""
expect_true "bash: the held QP $qpn is offered (offered '$out')" grep -qw -- "$qpn" <<<"$out"
run fish -c 'source $argv[1]; complete -C "$argv[2] qp query "' "$comp/qpscope.fish" "$q"
expect_true "fish: the held QP $qpn is offered" grep -q -- "^$qpn" <<<"$out"
run timeout 180 "$here/../cli/zsh-complete" "$comp" "$q qp destroy "  # slow under TCG
expect_true "zsh: the held QP $qpn is offered" grep -qx -- "$qpn" <<<"$out"
run "$q" qp destroy --all
expect_rc 0
