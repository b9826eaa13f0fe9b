# Counting device opens (one ibv_open_device is one openat of
# /dev/infiniband/uverbsN): what cases/27-doctor.sh and cases/75-threads.sh
# share. Sourced by them.

# traced FILE COMMAND...: runs COMMAND under strace, its openat calls in FILE
# (LeakSanitizer cannot run under ptrace).
traced=(env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f --seccomp-bpf -e trace=openat -o)
# device_opens FILE: how often the traced process opened a uverbs device file.
device_opens() { grep -c 'openat(.*"/dev/infiniband/uverbs[0-9]*"' "$1"; }
# opens_per_device FILE: one line per uverbs device file opened, its opens.
opens_per_device() {
  grep -o 'openat(.*"/dev/infiniband/uverbs[0-9]*"' "$1" | grep -o 'uverbs[0-9]*' | sort | uniq -c | awk '{ print $1 }'
}
