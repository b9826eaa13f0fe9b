#!/bin/bash
# qpscope ping-pong across the two-host lab's wire, clean and then with
# host B dropping the RoCE v2 packets that reach it (UDP 4791, a tc filter
# on eth0's ingress), printing what each side said. Runs on host A:
#   lab/qpscope-lab --hosts 2 --smp 1 -- lab/examples/two-hosts-qpscope-drop.sh [build/qpscope]
# On 2026-11-26 (issue 24's starting point): clean, one-way p50 about
# 326 us; dropped, both sides exited 3 and blamed the peer ("no completion
# within the timeout: the peer is silent"), although its TCP exchange
# answered. Since then they swap their RoCE packet counts and exit 1 naming
# the way ("here sent N RoCE packets since the run began, 192.0.2.2
# received none, ...: UDP 4791 dropped on the way or at 192.0.2.2").
set -u
q=$(readlink -f "${1:-build/qpscope}")
try() {
	on-b timeout 60 "$q" ping-pong -n 200 --timeout 10 >/dev/shm/server.out 2>&1 &
	local server=$!
	sleep 3
	timeout 60 "$q" ping-pong 192.0.2.2 -n 200 --timeout 10 >/dev/shm/client.out 2>&1
	echo "client rc $?"
	wait "$server"
	echo "server rc $?"
	grep -iv '^ *[0-9]\|BYTES' /dev/shm/client.out | sed 's/^/client: /'
	grep -iv '^ *[0-9]\|BYTES' /dev/shm/server.out | sed 's/^/server: /'
}
echo "== clean wire"
try
on-b sh -c 'tc qdisc add dev eth0 clsact &&
	tc filter add dev eth0 ingress protocol ip u32 match ip protocol 17 0xff match ip dport 4791 0xffff action drop' ||
	{ echo "cannot add the filter on B" >&2; exit 1; }
echo "== B drops UDP 4791"
try
on-b tc qdisc del dev eth0 clsact
