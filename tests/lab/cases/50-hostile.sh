# Lab case: hostile input on the out-of-band port of a serving qpscope:
# garbage, a truncated frame, an oversized length, a wrong version. Each
# ends the server with one clean line and a clean exit code, no crash.
# Sourced by tests/lab/run-all with $q set.

# hostile NAME PYTHON-BYTES-EXPR [CLOSE_AFTER_S]: serve, send the bytes, close.
hostile() {
  local name=$1 payload=$2
  # Bounded: a server that never sees its client must not hang the lab.
  timeout 120 "$q" ping-pong -d rxe0 -p 18650 --timeout 3 >/dev/null 2>"$hostile_err" &
  local srv=$!
  python3 - "$payload" <<'PY'
import socket, sys, time
deadline = time.monotonic() + 60  # a sanitizer build starts slowly in the VM
while True:
    try:
        s = socket.create_connection(("127.0.0.1", 18650), timeout=2); break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit("no qpscope server listening on 18650 after 60 s")
        time.sleep(0.05)
s.sendall(eval(sys.argv[1]))
time.sleep(0.3)
s.close()
PY
  wait "$srv"; rc=$?
  err=$(cat "$hostile_err"); out=""
  expect_true "$name: server exits 1 or 3, not by a signal (got $rc)" test "$rc" = 1 -o "$rc" = 3
  expect_err_lines 1
}
hostile_err=$(mktemp)

case_ "hostile input to a serving ping-pong"
hostile "garbage" 'b"GET / HTTP/1.0\r\n\r\n" * 4'
expect_err_has "not a qpscope exchange frame"
hostile "truncated frame" 'b"QPSX\x00\x00\x00\x64{\"type\":"'
expect_err_has "closed the connection in the middle of the \"hello\" message"
hostile "oversized length" 'b"QPSX\x7f\xff\xff\xff"'
expect_err_has "outside 2..65536 bytes"
hostile "wrong version" '(lambda b: b"QPSX" + len(b).to_bytes(4, "big") + b)(b"{\"type\":\"hello\",\"version\":99,\"tool\":\"qpscope\",\"test\":\"ping-pong\",\"role\":\"client\"}")'
expect_err_has "version 99"
hostile "not JSON" '(lambda b: b"QPSX" + len(b).to_bytes(4, "big") + b)(b"\xff\xfe not json at all")'
expect_err_has "not valid JSON"
rm -f "$hostile_err"
