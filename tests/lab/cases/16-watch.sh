# Lab cases: `qpscope watch` while things happen on the host: rxe0's netdev
# down and up (PORT_ERR, then PORT_ACTIVE), an address added and removed
# (GID_CHANGE, the GID entry by index), a QP created, moved and destroyed
# (with its owner), a bw client's QP into ERR once its server is gone (with
# the client's pid and comm), a device added, renamed (by its RDMA netlink
# index), its netdev renamed, and deleted (`rdma link delete` not held up
# by the watch's context), a bw's packets counted as the
# bw counted its messages, a churn of 10,000 QPs (the watch's RSS flat);
# every JSON line valid against docs/schema/watch.schema.json; SIGTERM ends
# it with exit 0; --top under tmux. Each step
# waits for the record of the one before (an order of events); the
# `eventually` bounds only catch a hang.
# Sourced by tests/lab/run-all with $q and $here set.
source "$here/schema-lib.sh"

# rxe0's netdev: veth0 in the one-host lab, eth0 on host A of two.
nd=$(rdma -j link show rxe0/1 | jq -r '.[0].netdev')
[ -n "$nd" ] && [ "$nd" != null ] || bad "rdma link show rxe0/1 names no netdev"
w_out=$(mktemp)
w_has() { jq -e -s "$1" "$w_out" >/dev/null 2>&1; }  # a jq filter over every line so far
w_get() { jq -r -s "$1" "$w_out"; }
# two_more_looks URL: returns once the watch serving URL (its /metrics) has
# taken two looks after this call, so a change made before it was seen.
two_more_looks() {
  local n
  n=$(curl -sf --max-time 10 "$1" | grep -oP '^qpscope_watch_looks_total \K[0-9]+')
  eventually 60 bash -c '[ "$(curl -sf --max-time 10 "$1" | grep -oP "^qpscope_watch_looks_total \K[0-9]+")" -gt $(($2 + 1)) ]' \
    _ "$1" "${n:-0}"
}
"$q" --json watch --interval 0.5 --prometheus 127.0.0.1:0 >"$w_out" 2>"$w_out.err" &
w_pid=$!

case_ "watch (no -d): the first record says what is watched"
expect_true "a started record within 60 s" eventually 60 w_has 'any(.kind == "started")'
expect_true "started first, naming rxe0" w_has '.[0].kind == "started" and (.[0].detail | test("rxe0"))'
expect_true "the watch holds a context of rxe0 (its uverbs file)" \
  eventually 30 bash -c 'ls -l /proc/$1/fd | grep -q /dev/infiniband/uverbs' _ "$w_pid"

case_ "watch: rxe0's netdev ($nd) down, up 2 s after PORT_ERR was seen: PORT_ERR then PORT_ACTIVE, 2 s or more apart"
ip link set "$nd" down
expect_true "PORT_ERR of rxe0 port 1 within 60 s" \
  eventually 60 w_has 'any(.kind == "async_event" and .event.name == "PORT_ERR" and .device == "rxe0" and .port == 1)'
sleep 2
ip link set "$nd" up
expect_true "PORT_ACTIVE of rxe0 port 1 within 60 s" \
  eventually 60 w_has 'any(.kind == "async_event" and .event.name == "PORT_ACTIVE" and .device == "rxe0" and .port == 1)'
expect_true "PORT_ERR before PORT_ACTIVE, their times 2 s or more apart" python3 -c '
import json, sys
from datetime import datetime
rs = [json.loads(l) for l in open(sys.argv[1])]
ev = [(i, r) for i, r in enumerate(rs) if r["kind"] == "async_event" and r["device"] == "rxe0"]
err = next((i, r) for i, r in ev if r["event"]["name"] == "PORT_ERR")
act = next((i, r) for i, r in ev if r["event"]["name"] == "PORT_ACTIVE" and i > err[0])
t = lambda r: datetime.fromisoformat(r["timestamp"].replace("Z", "+00:00"))
gap = (t(act[1]) - t(err[1])).total_seconds()
assert gap >= 2.0, gap
assert err[1]["severity"] == "error" and act[1]["severity"] == "info"
assert "left ACTIVE" in err[1]["meaning"], err[1]["meaning"]
print("apart", gap, "s", file=sys.stderr)' "$w_out"
expect_true "rxe0's link_downed rose, explained as doctor explains it" \
  eventually 60 w_has 'any(.kind == "counter_rose" and .device == "rxe0" and .subject == "link_downed" and (.meaning | test("link went down")))'
# Later cases need rxe0 as it was: ACTIVE, with its IPv4 GID (192.0.2.1 on A).
eventually 60 bash -c '"$1" --json ports -d rxe0 | jq -e ".devices[0].ports[0].state.name == \"ACTIVE\" and any(.devices[0].ports[0].gids[]; .ipv4 == \"192.0.2.1\")"' _ "$q" >/dev/null ||
  bad "rxe0 did not come back ACTIVE with 192.0.2.1 within 60 s"

case_ "watch: an address added and removed on $nd: GID_CHANGE, and the entry named by its index"
ip addr add 198.51.100.77/24 dev "$nd"
expect_true "gid_added for 198.51.100.77 within 60 s" \
  eventually 60 w_has 'any(.kind == "gid_added" and .device == "rxe0" and .port == 1 and (.detail | test("198\\.51\\.100\\.77")))'
expect_true "a GID_CHANGE event came" w_has 'any(.kind == "async_event" and .event.name == "GID_CHANGE" and .device == "rxe0")'
index=$(w_get '[.[] | select(.kind == "gid_added" and (.detail | test("198\\.51\\.100\\.77")))][0].index')
ip addr del 198.51.100.77/24 dev "$nd"
expect_true "gid_removed at the same index ($index) within 60 s" \
  eventually 60 w_has "any(.kind == \"gid_removed\" and .device == \"rxe0\" and .index == $index and (.detail | test(\"198\\\\.51\\\\.100\\\\.77\")))"

case_ "watch: a QP created, moved to INIT and destroyed, each named with its owner"
run "$q" --json qp create -d rxe0
expect_rc 0
qpn=$(jq -r '.qps[0].qpn.raw' <<<"$out")
holder=$(rdma -j resource show qp | jq -r --argjson n "$qpn" '.[] | select(.lqpn == $n) | .pid')
expect_true "qp_created for QP $qpn with the holder's pid ($holder)" \
  eventually 60 w_has "any(.kind == \"qp_created\" and .qpn == $qpn and .pid == $holder and .comm == \"qpscope-holder\" and .qp_type.name == \"RC\")"
run "$q" qp modify "$qpn" --state init --ib-port 1 --pkey-index 0 --access local_write
expect_rc 0
expect_true "qp_state RESET -> INIT" \
  eventually 60 w_has "any(.kind == \"qp_state\" and .qpn == $qpn and .from.name == \"RESET\" and .to.name == \"INIT\")"
run "$q" qp destroy "$qpn"
expect_rc 0
expect_true "qp_destroyed" eventually 60 w_has "any(.kind == \"qp_destroyed\" and .qpn == $qpn and .pid == $holder)"

case_ "watch: a bw's server gone while its client holds sends: the client's QP into ERR, named with its pid and comm"
# An order of events, none timed: the server stopped (its receive queue runs
# dry, the client's sends wait on RNR NAKs, --rnr-retry 7 retries without
# end), then the client stopped (its QP keeps those sends outstanding), then
# the server killed (its QP goes): the client's retries are not answered, and
# its QP goes into ERR in the kernel (after its --retry-cnt 3 retries) while
# nobody can destroy it.
"$q" bw -d rxe0 -p 18672 --timeout 60 >/dev/null 2>&1 &
e_srv=$!
eventually 60 listening 18672 || bad "the bw server did not listen within 60 s"
# --retry-cnt 3: rxe retries without end at 7 (the verbs' default), as it does RNR retries.
"$q" bw 127.0.0.1 -p 18672 --op send -s 64 -D 600 --timeout 60 --retry-cnt 3 --qp-timeout 14 >/dev/null 2>&1 &
e_cli=$!
if eventually 60 has_rts_qps "$e_cli" 1 && eventually 60 runs_traffic "$e_cli"; then
  # rxe counts the RNR NAKs its requesters receive: once the count rises,
  # the client has a send outstanding that waits on them.
  e_rnr=/sys/class/infiniband/rxe0/ports/1/hw_counters/rcvd_rnr_err
  e_rnr0=$(cat "$e_rnr")
  kill -STOP "$e_srv"
  eventually 60 bash -c '[ "$(cat "$1")" -gt "$2" ]' _ "$e_rnr" "$e_rnr0" ||
    bad "no RNR NAK reached the client within 60 s of its server's stop ($e_rnr stayed $e_rnr0)"
  kill -STOP "$e_cli"
  kill -KILL "$e_srv"
  expect_true "qp_state into ERR, owned by the client (pid $e_cli, comm qpscope)" \
    eventually 60 w_has "any(.kind == \"qp_state\" and .pid == $e_cli and .comm == \"qpscope\" and .to.name == \"ERR\" and .qp_type.name == \"RC\")"
  expect_true "the kernel agrees: the client's QP is in ERR" \
    bash -c 'rdma -j resource show qp | jq -e --argjson p "$1" "any(.[]; .pid == \$p and .state == \"ERR\")"' _ "$e_cli"
else
  bad "the bw did not run within 60 s"
fi
kill -CONT "$e_cli" 2>/dev/null
kill -KILL "$e_srv" 2>/dev/null
eventually 60 _not_running "$e_cli" || { kill -9 "$e_cli"; bad "the client did not end within 60 s of SIGCONT"; }
wait "$e_cli"; e_rc=$?
wait "$e_srv" 2>/dev/null
expect_true "the client, let go, ends as failed or lost its peer (exit 1 or 3, got $e_rc)" test "$e_rc" = 1 -o "$e_rc" = 3
expect_true "qp_destroyed for the client's QP" \
  eventually 60 w_has "any(.kind == \"qp_destroyed\" and .pid == $e_cli)"

case_ "watch: a device added, renamed, its netdev renamed, deleted: named each time; the delete is not held up; the watch goes on"
ip link add veth8 type veth peer name veth9
ip link set veth8 up
ip link set veth9 up
rdma link add rxw8 type rxe netdev veth8
expect_true "device_added rxw8 within 60 s" eventually 60 w_has 'any(.kind == "device_added" and .device == "rxw8" and .source == "device_list")'
expect_true "the watch holds two uverbs files now" \
  eventually 30 bash -c '[ "$(ls -l /proc/$1/fd | grep -c /dev/infiniband/uverbs)" -ge 2 ]' _ "$w_pid"
rw_index=$(rdma -j dev show rxw8 | jq -r '.[0].ifindex')
run rdma dev set rxw8 name rxw7
expect_rc 0
expect_true "device_renamed rxw8 -> rxw7 (RDMA netlink's index $rw_index) within 60 s" \
  eventually 60 w_has "any(.kind == \"device_renamed\" and .device == \"rxw7\" and .source == \"rdma_link\" and .from.name == \"rxw8\" and .to.name == \"rxw7\" and .to.raw == $rw_index)"
expect_true "rxw8 was not said removed, nor rxw7 added" \
  w_has 'all(.[]; (.kind == "device_removed" and .device == "rxw8") or (.kind == "device_added" and .device == "rxw7") | not)'
# A netdev is renamed while down; the port follows it (`rdma link show`).
veth8_index=$(cat /sys/class/net/veth8/ifindex)
ip link set veth8 down
ip link set veth8 name vethr8
ip link set vethr8 up
expect_true "rdma link show names vethr8 for rxw7/1" bash -c '[ "$(rdma -j link show rxw7/1 | jq -r ".[0].netdev")" = vethr8 ]'
expect_true "netdev_renamed of rxw7 port 1, veth8 -> vethr8 (ifindex $veth8_index) within 60 s" \
  eventually 60 w_has "any(.kind == \"netdev_renamed\" and .device == \"rxw7\" and .port == 1 and .from.name == \"veth8\" and .to.name == \"vethr8\" and .to.raw == $veth8_index)"
expect_true "no GID entry of rxw7 said changed by the rename" w_has 'all(.[]; .kind == "gid_changed" and .device == "rxw7" | not)'
run timeout 60 rdma link delete rxw7
expect_rc 0
expect_true "device_removed rxw7" eventually 60 w_has 'any(.kind == "device_removed" and .device == "rxw7")'
expect_true "the watch still runs" kill -0 "$w_pid"
ip link del vethr8 2>/dev/null
ip link del veth8 2>/dev/null

case_ "watch --prometheus: rxe0's counters on /metrics are those of ports --format prometheus read between two looks"
metrics_url=$(w_get '.[0].detail' | grep -o 'http://127\.0\.0\.1:[0-9]*/metrics')
# counters_of TEXT: "series value" of rxe0's sysfs counter families.
counters_of() { grep -E '^qpscope_(hw_)?counters_[a-z0-9_]*\{device="rxe0"' <<<"$1" | sort; }
looks_of() { grep -oP '^qpscope_watch_looks_total \K[0-9]+' <<<"$1"; }
scrape() { curl -sf --max-time 10 "$metrics_url"; }
agreed=''
for ((read = 1; read <= 10; read++)); do
  before=$(scrape); ports=$("$q" ports -d rxe0 --format prometheus); n=$(looks_of "$before")
  # The next look is taken after the ports read: a counter the same in the
  # looks before and after it was the same when ports read it (they only rise).
  eventually 30 bash -c '[ "$(curl -sf --max-time 10 "$1" | grep -oP "^qpscope_watch_looks_total \K[0-9]+")" -gt "$2" ]' \
    _ "$metrics_url" "${n:-0}" || break
  after=$(scrape)
  if [ -n "$(counters_of "$before")" ] && [ "$(counters_of "$before")" = "$(counters_of "$after")" ]; then
    agreed=$read; break
  fi
done
out=$after
expect_true "the watch's two looks agreed around the ports read (at read ${agreed:-none} of 10)" test -n "$agreed"
expect_true "rxe0's $(counters_of "$after" | grep -c '') counter series on /metrics equal ports --format prometheus's" \
  test "$(counters_of "$after")" = "$(counters_of "$ports")"
expect_true "/metrics passes promtool check metrics" bash -c '"$1" check metrics <<<"$2"' _ "$(find_promtool)" "$after"
expect_true "records by kind: the PORT_ERR and PORT_ACTIVE async events counted" \
  grep -qE '^qpscope_watch_records_total\{kind="async_event"\} [2-9]' <<<"$after"
echo "   (the views agreed at read ${agreed:-none})"

case_ "watch: the packets it counted on rxe0 while a bw ran are the bw's (within 5 %), and so is its rate over the bw's time"
# UC writes of 64 bytes: one packet a message and no ACKs, so rxe0's sent
# packets are the client's messages: warm-up, measured, and at most a queue's
# depth (tx_depth) after the measured span. Counted from the watch's looks
# before the bw to two looks after it ended (an order of events).
two_more_looks "$metrics_url"
r_from=$(wc -l <"$w_out")
"$q" bw -d rxe0 -p 18673 --timeout 60 >/dev/null 2>&1 &
r_srv=$!
eventually 60 listening 18673 || bad "the bw server did not listen within 60 s"
run timeout 180 "$q" --json bw 127.0.0.1 -p 18673 --transport uc --op write -s 64 -n 20000 --timeout 60
wait "$r_srv"
expect_rc 0
two_more_looks "$metrics_url"
r_bw=$(jq -r '[.test.warmup, .client_posts[0].messages, .client_posts[0].measured_s, .client_posts[0].messages_per_s, .test.cooldown_max_messages] | map(tostring) | join(" ")' <<<"$out")
read -r r_warm r_msgs r_secs r_rate r_cool <<<"$r_bw"
r_pkts=$(tail -n +"$((r_from + 1))" "$w_out" | jq -s '[.[] | select(.kind == "port_rate" and .device == "rxe0" and .port == 1) | .delta] | add // 0')
echo "   (bw: $r_warm warm-up + $r_msgs measured messages in $r_secs s, $r_rate/s, up to $r_cool after; the watch counted $r_pkts packets)"
expect_true "the watch's packets: at least the bw's warm-up and measured messages ($r_pkts >= $r_warm + $r_msgs)" \
  test "$r_pkts" -ge "$((r_warm + r_msgs))"
expect_true "the watch's packets: at most 5 % above them, and no more than the queue's depth after ($r_pkts)" \
  python3 -c 'import sys; p, w, m, c = map(float, sys.argv[1:]); sys.exit(not (p <= min((w + m) * 1.05, w + m + c)))' \
  "$r_pkts" "$r_warm" "$r_msgs" "$r_cool"
expect_true "over the bw's measured time, the watch's rate ($r_pkts / $r_secs s) is within 5 % of bw's $r_rate messages/s" \
  python3 -c 'import sys; p, w, s, r = map(float, sys.argv[1:]); sys.exit(not (abs((p - w) / s - r) <= 0.05 * r))' \
  "$r_pkts" "$r_warm" "$r_secs" "$r_rate"

case_ "watch: SIGTERM ends it with exit 0, its last record says so; every line is valid"
kill -TERM "$w_pid"
eventually 60 _not_running "$w_pid" || { kill -9 "$w_pid"; bad "watch did not end within 60 s of SIGTERM"; }
wait "$w_pid"; rc=$?
out=$(tail -c 2000 "$w_out"); err=$(cat "$w_out.err")
expect_rc 0
expect_true "the last record is stopped, interrupted by SIGTERM" \
  w_has '.[-1].kind == "stopped" and .[-1].detail == "interrupted by SIGTERM"'
expect_true "nothing on stderr" test -z "$err"
expect_valid_file watch "$w_out" --lines
rm -f "$w_out" "$w_out.err"

case_ "watch through a churn of 10,000 QPs (10 batches of 1,000): every batch seen, its RSS flat within 2 MiB over the second 5,000"
# The watch under ASan: no quarantine, so freed memory is reused as a
# release build reuses it and RSS shows what the watch keeps. Each batch is
# held until the watch has looked at it twice (/metrics' looks count), so
# every QP is seen created and destroyed: an order of events, no timing.
c_out=$(mktemp)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0:thread_local_quarantine_size_kb=0" \
  "$q" --json watch -d rxe0 --interval 0.2 --prometheus 127.0.0.1:0 >"$c_out" 2>"$c_out.err" &
c_pid=$!
eventually 60 bash -c 'grep -q "http://127.0.0.1:[0-9]*/metrics" "$1"' _ "$c_out" || bad "the churn's watch did not start within 60 s"
c_url=$(grep -o -m1 'http://127\.0\.0\.1:[0-9]*/metrics' "$c_out")
c_rss() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
# qp_churn through two FIFOs (the schema validator holds bash's coproc):
# its "created K" lines in, a line out for each next batch.
mkfifo "$c_out.in" "$c_out.lines"
"$(dirname "$q")/tests/qp_churn" rxe0 10000 1000 <"$c_out.in" >"$c_out.lines" 2>&1 &
c_churn=$!
exec {c_to}>"$c_out.in" {c_from}<"$c_out.lines"
c_batches=0 c_rss_warm='' c_line='' c_rss_all=''
while IFS= read -r -t 300 -u "$c_from" c_line && [[ $c_line == "created "* ]]; do
  c_batches=$((c_batches + 1))
  two_more_looks "$c_url" || { bad "the watch took no two looks within 60 s of batch $c_batches"; break; }
  c_rss_all+=" $(c_rss "$c_pid")"
  [ "$c_batches" = 5 ] && c_rss_warm=$(c_rss "$c_pid")
  echo next >&"$c_to"
done
exec {c_to}>&- {c_from}<&-
wait "$c_churn"
expect_true "qp_churn made 10,000 QPs in 10 batches (last line: $c_line)" test "$c_line/$c_batches" = "done 10000/10"
two_more_looks "$c_url"  # the last batch's destruction seen
c_rss_end=$(c_rss "$c_pid")
echo "   (the watch's RSS in KiB after each batch:$c_rss_all; at the end $c_rss_end)"
expect_true "RSS after 10,000 QPs within 2 MiB of RSS after 5,000 (${c_rss_warm:-?} -> ${c_rss_end:-?} KiB)" \
  test "$((${c_rss_end:-999999} - ${c_rss_warm:-0}))" -le 2048
kill -TERM "$c_pid"; wait "$c_pid"
# Counted with grep (the watch writes compact JSON lines): jq -s over the
# 20,000 lines cost seconds of the guest's CPU.
c_counts="$(grep -F '"comm":"qp_churn"' "$c_out" | grep -cF '"kind":"qp_created"')/$(grep -F '"comm":"qp_churn"' "$c_out" | grep -cF '"kind":"qp_destroyed"')"
expect_true "10,000 qp_created and 10,000 qp_destroyed records of qp_churn (got $c_counts)" test "$c_counts" = 10000/10000
rm -f "$c_out" "$c_out.err" "$c_out.in" "$c_out.lines"

case_ "watch --top under tmux: a bw's busiest QP is the first row, with its owner; q quits, the terminal as it was"
top_rc=$(mktemp)
tmux kill-session -t qtop 2>/dev/null
# The pane's shell stays after qpscope ends (sleep), so the screen it left behind can be read.
tmux new-session -d -s qtop -x 160 -y 40 "TERM=screen $q watch --top --interval 0.5; echo \$? >$top_rc; sleep 120"
"$q" bw -d rxe0 -p 18671 >/dev/null 2>&1 &
top_srv=$!
eventually 60 listening 18671 || bad "the bw server did not listen within 60 s"
"$q" bw 127.0.0.1 -p 18671 -D 12 >/dev/null 2>&1 &
top_cli=$!
# first_qp_row: the row under the QP list's header, as the pane shows it now.
first_qp_row() { tmux capture-pane -p -t qtop | awk '/^DEVICE +QPN/ {getline; print; exit}'; }
# busiest_is_bw: that row is one of the bw's two processes' (pid, owner qpscope) and moves PSNs.
busiest_is_bw() {
  local row; row=$(first_qp_row)
  read -r _ _ _ state rate pid owner _ <<<"$row"
  [ "$state" = RTS ] && [ "$owner" = qpscope ] && [[ $rate =~ ^[0-9]+$ ]] && [ "$rate" -gt 0 ] &&
    { [ "$pid" = "$top_srv" ] || [ "$pid" = "$top_cli" ]; }
}
if eventually 60 busiest_is_bw; then
  ok "the first QP row is the bw's, with its owner: $(first_qp_row | tr -s ' ')"
else
  bad "the first QP row is not the bw's (pids $top_srv, $top_cli): '$(first_qp_row)'"
  tmux capture-pane -p -t qtop | sed 's/^/        pane: /'
fi
expect_true "the ports panel shows rxe0/1 ACTIVE" bash -c 'tmux capture-pane -p -t qtop | grep -qE "^rxe0/1 +ACTIVE"'
wait "$top_cli" "$top_srv"
tmux send-keys -t qtop q
expect_true "q ends watch --top with exit 0 (within 30 s)" \
  eventually 30 bash -c '[ "$(cat "$1")" = 0 ]' _ "$top_rc"
expect_true "the terminal as it was: the view is gone and the last record is a line (stopped, q pressed)" \
  bash -c 'p=$(tmux capture-pane -p -t qtop); grep -q "stopped .*q pressed" <<<"$p" && ! grep -q "^DEVICE " <<<"$p"' 
tmux kill-session -t qtop 2>/dev/null
rm -f "$top_rc"
run "$q" --json watch --top --count 1
expect_rc 2; expect_out_has "--top draws a screen and --json writes JSON Lines"
run "$q" watch --top --count 1
expect_rc 1; expect_err_lines 1; expect_err_has "--top draws on a terminal"

case_ "watch as nobody (no -d): another user's QP seen created and destroyed, with its owner; uverbs0 closed to it: what it cannot see, and why"
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
n_out=$(mktemp)
"${nobody[@]}" "$q" --json watch --interval 0.2 >"$n_out" 2>"$n_out.err" &
n_pid=$!
n_has() { jq -e -s "$1" "$n_out" >/dev/null 2>&1; }
expect_true "nobody's watch started, naming rxe0" eventually 60 n_has 'any(.kind == "started" and (.detail | test("rxe0")))'
run "$q" --json qp create -d rxe0
expect_rc 0
n_qpn=$(jq -r '.qps[0].qpn.raw' <<<"$out")
expect_true "qp_created for root's QP $n_qpn, owned by qpscope-holder" \
  eventually 60 n_has "any(.kind == \"qp_created\" and .qpn == $n_qpn and .comm == \"qpscope-holder\" and .pid > 0)"
run "$q" qp destroy --all
expect_rc 0
expect_true "qp_destroyed for QP $n_qpn" eventually 60 n_has "any(.kind == \"qp_destroyed\" and .qpn == $n_qpn)"
kill -TERM "$n_pid"; wait "$n_pid"; n_rc=$?
expect_true "SIGTERM: exit 0, nothing on stderr (got $n_rc)" bash -c '[ "$1" = 0 ] && ! [ -s "$2" ]' _ "$n_rc" "$n_out.err"
expect_true "nobody saw no look fail while uverbs0 was open to it" bash -c '! jq -e -s "any(.kind == \"look_failed\")" "$1" >/dev/null' _ "$n_out"
uv_mode=$(stat -c %a /dev/infiniband/uverbs0)
chmod 0600 /dev/infiniband/uverbs0
run timeout 60 "${nobody[@]}" "$q" --json watch --count 2 --interval 0.2
chmod "$uv_mode" /dev/infiniband/uverbs0
expect_rc 0
expect_true "a look_failed record: rxe0's events and ports cannot be read, uverbs0's mode and the user named" \
  bash -c 'jq -e -s "any(.kind == \"look_failed\" and .device == \"rxe0\" and (.detail | test(\"events and ports\") and test(\"uverbs0\") and test(\"0600\") and test(\"nobody\")))" <<<"$1" >/dev/null' _ "$out"
expect_true "the watch went on to its 2 looks" bash -c 'jq -e -s ".[-1].kind == \"stopped\" and (.[-1].detail | test(\"2 looks taken\"))" <<<"$1" >/dev/null' _ "$out"
expect_valid_file watch "$n_out" --lines
rm -f "$n_out" "$n_out.err"

case_ "watch -d rxe0 --count 2, text: one line a record, started first, stopped last"
run "$q" watch -d rxe0 --count 2 --interval 0.2
expect_rc 0
expect_true "started names only rxe0" bash -c 'head -1 <<<"$1" | grep -q "started .*1 device (rxe0)"' _ "$out"
expect_true "stopped after 2 looks" bash -c 'tail -1 <<<"$1" | grep -q "stopped .*2 looks taken, the count asked for"' _ "$out"
run "$q" watch -d nosuch0
expect_rc 2; expect_err_lines 1; expect_err_has "nosuch0"
sch_done
