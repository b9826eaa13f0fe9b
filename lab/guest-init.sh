#!/bin/bash
# qpscope-lab, stage 2: PID 1 inside the lab VM.
#
# Stage 1 (the initramfs /init written by lab/qpscope-lab) has mounted the
# host's / read-only as our root, a tmpfs on /run, and the results share on
# /run/qpscope-lab, where the host also put a copy of this file, lab.conf
# (settings) and command (the command line). This script sets up Soft-RoCE,
# mounts the host's shares, runs the command, writes stdout, stderr and rc
# to the results share and powers off. Progress and errors go to the
# console, which the host shows when something goes wrong.
#
# In a two-host lab (--hosts 2, LAB_ROLE a or b) each guest runs this:
# rxe0 sits on eth0, the virtio NIC of the wire between the two; host A
# runs the command, host B runs the agent that takes A's jobs (lab/on-b)
# from the shared queue until A is done.
set -u
readonly RESULTS=/run/qpscope-lab
readonly QUEUE=/run/qpscope-lab-queue # two hosts: the share A and B pass jobs through
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

log() { echo "qpscope-lab: $*"; }

power_off() {
	/bin/busybox poweroff -f
	echo o >/proc/sysrq-trigger
	sleep 10 # PID 1 must not exit: that panics (harmless, but noisy)
}

# A setup failure: the reason goes to the console and, as one line, to the
# host (it prints it and exits 125); no rc is written.
die() {
	log "error: $*"
	echo "$*" >"$RESULTS/error"
	# Host B: A waits for B, so B says it failed in the queue too.
	[[ ${LAB_ROLE:-} != b ]] || echo "$*" >"$QUEUE/b-error" 2>/dev/null
	power_off
}

# 1. Kernel file systems. Stage 1 moved devtmpfs to /dev and mounted /run.
mount -t proc proc /proc || die "cannot mount /proc"
mount -t sysfs sysfs /sys || die "cannot mount /sys"
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev || die "cannot mount /dev"
mkdir -p /dev/shm /dev/pts
mount -t devpts -o gid=5,mode=620 devpts /dev/pts
for dir in /tmp /dev/shm; do
	mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$dir" || die "cannot mount tmpfs on $dir"
done

# 1b. The clock. The kernel calibrates the TSC once at boot against the
#    emulated PIT or HPET, and on a loaded host that can come out wrong: a
#    fresh-machine run's host A kept a clock that ran about 2.6 times the
#    host's (its case files' times summed to 2,177 s in an 830 s shard),
#    so every timeout there fired early, and tsc=reliable leaves no watchdog
#    to notice. The kernel keeps a refinement only within 1 % of that first
#    value. So the guest times two seconds of the RTC (the host's clock)
#    with its own; when both of two tries are off by more than a fifth, it
#    leaves the TSC for the HPET (emulated from the host's clock: slower to
#    read, but right) and takes the time from the RTC again.
readonly RTC=/sys/class/rtc/rtc0/since_epoch
# clock_per_mille: the guest's milliseconds in two of the RTC's seconds, /2;
# 1000 (nothing to mend) when the RTC does not move within 2,000 naps.
clock_per_mille() {
	local fd start t0 t1 rtc naps=0
	exec {fd}<>/run/qpscope-lab-clock-nap
	read -r start <"$RTC"
	rtc=$start
	while ((rtc == start && naps++ < 2000)); do read -r -t 0.02 -u "$fd"; read -r rtc <"$RTC"; done
	t0=$EPOCHREALTIME start=$rtc
	while ((rtc < start + 2 && naps++ < 2000)); do read -r -t 0.02 -u "$fd"; read -r rtc <"$RTC"; done
	t1=$EPOCHREALTIME
	exec {fd}<&-
	if ((naps > 2000)); then
		log "clock: the RTC did not move in 2,000 naps of 0.02 s; the clock is not checked" >&2
		echo 1000
		return
	fi
	echo $(((10#${t1/./} - 10#${t0/./}) / 2000))
}
check_clock() {
	local first second source=/sys/devices/system/clocksource/clocksource0/current_clocksource
	[[ -r $RTC ]] || { log "clock: no RTC to check it against"; return; }
	mkfifo /run/qpscope-lab-clock-nap || { log "clock: cannot make its FIFO"; return; }
	first=$(clock_per_mille)
	if ((first >= 800 && first <= 1250)); then
		log "clock: $first/1000 of the host's ($(<"$source"))"
		return
	fi
	second=$(clock_per_mille)
	if ((second >= 800 && second <= 1250)); then
		log "clock: $first, then $second/1000 of the host's ($(<"$source")): the first try was held up"
		return
	fi
	echo hpet >"$source" || log "clock: cannot switch to the HPET"
	busybox hwclock -s -u 2>/dev/null || date -s "@$(<"$RTC")" >/dev/null
	log "clock: the TSC's calibration is off (the guest's clock ran $first and $second/1000 of the host's):" \
		"now $(<"$source"), $(clock_per_mille)/1000"
}
check_clock

# 2. Settings from the host: LAB_TIMEOUT, LAB_KILL_AFTER, LAB_CWD,
#    LAB_SHARES (mount tag, path, ...), LAB_ENV (NAME=value ...); with two
#    hosts also LAB_ROLE (a or b) and LAB_PEER_WAIT (s A waits for B).
# shellcheck source=/dev/null
source "$RESULTS/lab.conf" || die "cannot read $RESULTS/lab.conf"
role=${LAB_ROLE:-single}

# A host name: Open MPI (qpscope-mesh's tests) refuses to start on "(none)".
# Host A of two is "lab" like the one host (the one-host cases run on A and
# name it), B is "lab-b".
case $role in
single | a) hostname lab ;;
*) hostname "lab-$role" ;;
esac || die "cannot set the host name"

# The queue, uncached: each side must see the other's files at once. The
# FIFO is for naps without a fork (read -t on it; nobody writes it).
if [[ $role != single ]]; then
	mkdir -p "$QUEUE"
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 queue "$QUEUE" ||
		die "cannot mount the queue share"
	mkfifo -m 0666 /run/qpscope-lab-nap || die "cannot make /run/qpscope-lab-nap"
fi

# 3. Soft-RoCE. One host: rxe0 on veth0 (192.0.2.1/24); veth1 is its peer
#    (192.0.2.2/24). Two hosts: rxe0 on eth0, A 192.0.2.1/24, B 192.0.2.2/24.
if [[ $role == single ]]; then
	modprobe -a ib_uverbs rdma_ucm rdma_rxe veth || die "modprobe ib_uverbs rdma_ucm rdma_rxe veth failed"
	ip link set lo up || die "cannot bring lo up"
	ip link add veth0 type veth peer name veth1 || die "cannot create the veth pair"
	ip addr add 192.0.2.1/24 dev veth0 || die "cannot add 192.0.2.1/24 to veth0"
	ip addr add 192.0.2.2/24 dev veth1 || die "cannot add 192.0.2.2/24 to veth1"
	ip link set veth0 up || die "cannot bring veth0 up"
	ip link set veth1 up || die "cannot bring veth1 up"
	rdma link add rxe0 type rxe netdev veth0 || die "rdma link add rxe0 type rxe netdev veth0 failed"
else
	case $role in
	a) address=192.0.2.1 ;;
	b) address=192.0.2.2 ;;
	*) die "unknown LAB_ROLE '$role'" ;;
	esac
	modprobe -a ib_uverbs rdma_ucm rdma_rxe virtio_net ||
		die "modprobe ib_uverbs rdma_ucm rdma_rxe virtio_net failed"
	ip link set lo up || die "cannot bring lo up"
	[[ -e /sys/class/net/eth0 ]] || die "no eth0 (the wire's virtio NIC)"
	ip addr add "$address/24" dev eth0 || die "cannot add $address/24 to eth0"
	ip link set eth0 up || die "cannot bring eth0 up"
	rdma link add rxe0 type rxe netdev eth0 || die "rdma link add rxe0 type rxe netdev eth0 failed"
fi
state=missing
for ((tenth = 0; tenth < 100; tenth++)); do
	read -r state 2>/dev/null </sys/class/infiniband/rxe0/ports/1/state
	[[ $state == *ACTIVE* ]] && break
	sleep 0.1
done
[[ $state == *ACTIVE* ]] || die "rxe0 port 1 is not ACTIVE after 10 s (state: $state)"
log "rxe0 port 1 ACTIVE"

# The verbs providers of this lab's devices, rxe and siw, and no other:
# libibverbs loads every provider its config directory lists at a
# process's first device lookup (17 on Debian 12), in the emulated CPU
# each time, and a lab run starts hundreds of verbs programs. Measured in
# one boot: 5 `qpscope ports` (sanitised) 3.37 s with all 17, 2.59 s with
# these two; 5 ibv_devinfo 0.76 s and 0.50 s. No other provider's device
# exists here, so nothing else changes.
mkdir -p /run/libibverbs.d
if cp /etc/libibverbs.d/rxe.driver /etc/libibverbs.d/siw.driver /run/libibverbs.d/ 2>/dev/null; then
	mount --bind /run/libibverbs.d /etc/libibverbs.d || log "could not narrow /etc/libibverbs.d (every provider loads)"
else
	log "no rxe.driver or siw.driver in /etc/libibverbs.d: every provider loads"
fi

# 4. The host's directories, each at its own path. A path under /tmp, /run
#    or /dev/shm is hidden by our tmpfs, so its mount point is made there.
#    Read-only and cached (cache=loose): the guest sees each file as it was
#    when it first read it, which is all a run needs. Uncached, every exec
#    fetched the binary's pages over 9p again, one emulated round trip each:
#    a sanitizer build of qpscope took 35-50 s to start instead of 4-6 s.
for ((i = 0; i < ${#LAB_SHARES[@]}; i += 2)); do
	tag=${LAB_SHARES[i]} path=${LAB_SHARES[i + 1]}
	mkdir -p "$path" 2>/dev/null
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro,cache=loose "$tag" "$path" ||
		die "cannot mount the host's $path"
done

# Two hosts: B serves A's jobs until A is done; A waits for B to be ready
# and to answer a ping over the wire, then runs the command with on-b (the
# host copied lab/on-b into $RESULTS/bin) in PATH.
if [[ $role == b ]]; then
	cd "$LAB_CWD" || die "cannot cd to $LAB_CWD"
	ulimit -l unlimited
	readonly JOBS=/run/qpscope-lab-jobs # ID: the pid of the job's timeout(1)
	mkdir -p "$JOBS"
	# A job runs as the command does on A (see 5.): timeout(1) under a
	# subshell, the lab's environment, B's stdin /dev/null. ID.rc comes last.
	start_job() { # start_job ID
		local job=$QUEUE/$1
		mv -- "$job.job" "$job.run" 2>/dev/null || return 0
		log "job $1"
		(
			env -i PATH="$PATH" HOME=/root "${LAB_ENV[@]}" \
				timeout --kill-after="$LAB_KILL_AFTER" "$LAB_TIMEOUT" \
				bash "$job.run" </dev/null >"$job.out" 2>"$job.err" &
			echo "$!" >"$JOBS/$1"
			wait "$!"
			echo "$?" >"$job.rc.tmp" && mv -- "$job.rc.tmp" "$job.rc"
			rm -f -- "$JOBS/$1"
		) &
	}
	shopt -s nullglob
	exec {nap}<>/run/qpscope-lab-nap # naps without forking sleep(1): see lab/on-b
	: >"$QUEUE/b-ready" || die "cannot write to the queue"
	log "host B: serving host A's jobs"
	# Each round reads the uncached 9p share, which costs the emulator: about
	# a tenth of a host CPU at 10 rounds a second (measured 2026-11-26, B
	# idle). B naps 0.1 s while jobs come, 0.5 s after 5 s without one (the
	# lab-2 shard's B idles through its one-host cases).
	quiet_rounds=0
	while [[ ! -e $QUEUE/stop ]]; do
		for file in "$QUEUE"/*; do # one directory read per round
			case $file in
			*.job)
				file=${file##*/}
				start_job "${file%.job}"
				quiet_rounds=0
				;;
			*.cancel) # on-b was killed: so is its job
				id=${file##*/}
				id=${id%.cancel}
				[[ ! -s $JOBS/$id ]] || kill -TERM "$(<"$JOBS/$id")" 2>/dev/null
				rm -f -- "$file"
				;;
			esac
		done
		if ((quiet_rounds++ < 50)); then
			read -r -t 0.1 -u "$nap" || true
		else
			read -r -t 0.5 -u "$nap" || true
		fi
	done
	log "host B: host A is done"
	power_off
fi
if [[ $role == a ]]; then
	for ((tenth = 0; tenth < LAB_PEER_WAIT * 10; tenth++)); do
		[[ -e $QUEUE/b-ready || -e $QUEUE/b-error ]] && break
		sleep 0.1
	done
	[[ ! -e $QUEUE/b-error ]] || die "host B: $(<"$QUEUE/b-error")"
	[[ -e $QUEUE/b-ready ]] || die "host B was not ready after $LAB_PEER_WAIT s"
	for try in 1 2 3; do
		busybox ping -q -c 1 -W 5 192.0.2.2 >/dev/null && break
		((try < 3)) || die "host B (192.0.2.2) does not answer ping over eth0"
	done
	PATH=$RESULTS/bin:$PATH
	log "host B ready"
fi

# 5. The command, as root, in the host's current directory, with a clean
#    environment plus what the host passed through. timeout's own messages
#    go to timeout.log: "sending signal TERM" there means the command timed
#    out; another signal, that timeout(1) received it and passed it on.
#    timeout runs as the child of a subshell, not of this PID 1: the kernel
#    does not count a parent that is init as a tie to the session, so under
#    PID 1 the command's process group is orphaned from the start, and
#    whenever a process of it that was reparented to init (e.g. a case's
#    stray `sleep`) exits while another is stopped (SIGSTOP, the frozen-peer
#    cases), the kernel sends the whole group SIGHUP (POSIX's orphaned
#    process group rule) and the run ends as if it had timed out.
cd "$LAB_CWD" || die "cannot cd to $LAB_CWD"
ulimit -l unlimited
log "running the command"
# `& wait`: the subshell stays timeout's parent (a lone command would be
# exec'd in its place).
# shellcheck disable=SC2016 # $1 is expanded by the inner bash
(
	env -i PATH="$PATH" HOME=/root "${LAB_ENV[@]}" \
		timeout --verbose --kill-after="$LAB_KILL_AFTER" "$LAB_TIMEOUT" \
		bash -c 'exec </dev/null >"$1/stdout" 2>"$1/stderr"
			source "$1/command"
			"${cmd[@]}"' lab-vm "$RESULTS" \
		2>"$RESULTS/timeout.log" &
	wait $!
)
rc=$?
[[ $role != a ]] || : >"$QUEUE/stop" # host B powers off
# How long the command ran by the guest's clocks: a "timed out" that the
# host's clock contradicts is then visible.
{ echo "uptime $(cut -d' ' -f1 /proc/uptime) s"; date -u '+date %Y-%m-%dT%H:%M:%SZ'; } >"$RESULTS/clock"
grep -q 'sending signal TERM' "$RESULTS/timeout.log" && : >"$RESULTS/timed-out"
echo "$rc" >"$RESULTS/rc.tmp" && mv "$RESULTS/rc.tmp" "$RESULTS/rc"
log "command exited with $rc"
power_off
