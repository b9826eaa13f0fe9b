#!/bin/bash
# A fault made for real on the two-host lab's wire: host B drops the RoCE v2
# packets that reach it (UDP destination port 4791) with a tc filter on
# eth0's ingress, so an RC ping-pong between A and B stalls, while TCP (the
# ping-pong's connection exchange) still passes. Then the filter goes and
# the ping-pong works again. Runs on host A:
#   lab/qpscope-lab --hosts 2 --smp 1 lab/examples/two-hosts-roce-drop.sh
# Exit status 0 when all three runs end as expected.
#
# What to expect on rxe: ibv_rc_pingpong sets retry_cnt 7, which rxe (its
# completer, rxe_comp.c) treats as "retry forever", so A's QP resends every
# local ACK timeout (timeout 14: about 67 ms) and never completes with
# "transport retry counter exceeded": the client ends by timeout(1) (124).
# Drop on B's ingress, not on A's or B's egress: a tc drop on the sender's
# egress is reported back to rxe's transmit path, and rxe then resends at
# once, many thousand packets a second, not at its timer's pace.
set -u

# pingpong NAME: server on B, client on A; prints what they printed and
# sets client_rc, server_rc.
pingpong() {
	# stdbuf: what the tools printed survives their timeout.
	on-b timeout 40 stdbuf -oL ibv_rc_pingpong -d rxe0 -g 1 -n 200 >/tmp/server.out 2>&1 &
	local server=$!
	sleep 2
	timeout 20 stdbuf -oL ibv_rc_pingpong -d rxe0 -g 1 -n 200 192.0.2.2 >/tmp/client.out 2>&1
	client_rc=$?
	# The server waits for a peer that has given up: end it (on-b's kill
	# reaches B; its output stays there).
	((client_rc == 0)) || { sleep 1; kill "$server" 2>/dev/null; }
	wait "$server"
	server_rc=$?
	echo "== $1: client rc $client_rc, server rc $server_rc"
	sed 's/^/client: /' /tmp/client.out
	sed 's/^/server: /' /tmp/server.out
}

failed=0
pingpong "clean wire"
((client_rc == 0 && server_rc == 0)) || failed=1

on-b sh -c 'tc qdisc add dev eth0 clsact &&
	tc filter add dev eth0 ingress protocol ip u32 match ip protocol 17 0xff match ip dport 4791 0xffff action drop' ||
	{ echo "cannot add the filter on B" >&2; exit 1; }
pingpong "B drops the RoCE packets that reach it"
((client_rc != 0)) || failed=1
echo "== B's filter:"
on-b tc -s filter show dev eth0 ingress | grep -E 'dport|Sent|action'

on-b tc qdisc del dev eth0 clsact
pingpong "filter removed"
((client_rc == 0 && server_rc == 0)) || failed=1
exit "$failed"
