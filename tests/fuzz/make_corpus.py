#!/usr/bin/env python3
"""Writes the fuzzer's seed corpus (tests/fuzz/corpus/): one small file per
case, valid frames and bodies of every message type and the hostile inputs
the unit tests name. Rerun after changing the wire format; the files are
checked in."""
import json
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "corpus")


def frame(body: bytes) -> bytes:
    return b"QPSX" + struct.pack(">I", len(body)) + body


def j(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


hello = {"type": "hello", "version": 4, "tool": "qpscope", "test": "ping-pong", "role": "client"}
endpoint = {"type": "endpoint", "qpn": 291, "psn": 1193046, "lid": 0,
            "gid": "fe80:0000:0000:0000:5054:00ff:fe12:3456", "gid_index": 1,
            "rkey": 4660, "addr": 140737488355328, "size": 4096, "mtu": 1024,
            "max_dest_rd_atomic": 16}
params = {"type": "params", "params": {"size": 64, "op": "send", "iterations": 1000, "inline": True, "rate": 2.5, "threads": 2}, "timeout_ms": 10000}
results = {"type": "results", "results": {"latency_us": {"p50": 1.9, "p99": 3.1}, "iterations": 1000}}
error = {"type": "error", "message": "cannot create QP: ENOMEM"}

valid = {
    "hello": hello,
    "hello-server-bw": dict(hello, test="bw", role="server"),
    "endpoint": endpoint,
    "endpoint-compressed-gid": dict(endpoint, gid="::ffff:192.0.2.1"),
    "endpoint-max": dict(endpoint, qpn=2**24 - 1, psn=2**24 - 1, lid=65535, gid_index=255,
                         rkey=2**32 - 1, addr=2**64 - 1, size=2**64 - 1, mtu=4096, max_dest_rd_atomic=255),
    "params": params,
    "params-empty": {"type": "params", "params": {}, "timeout_ms": 100},
    "ready": {"type": "ready"},
    "alive": {"type": "alive"},
    "results": results,
    "error": error,
}
hostile_bodies = {
    "hello-next-version": dict(hello, version=5, window=8),
    "hello-perftest": dict(hello, tool="perftest"),
    "hello-unknown-member": dict(hello, colour="blue"),
    "endpoint-psn-24bit": dict(endpoint, psn=2**24),
    "endpoint-bad-gid": dict(endpoint, gid="zz"),
    "endpoint-gid-array": dict(endpoint, gid=[254, 128]),
    "endpoint-mtu-1000": dict(endpoint, mtu=1000),
    "endpoint-negative": dict(endpoint, qpn=-1),
    "endpoint-float": dict(endpoint, rkey=1.5),
    "endpoint-no-reads": dict(endpoint, max_dest_rd_atomic=0),
    "params-nested": {"type": "params", "params": {"size": [1, 2]}, "timeout_ms": 500},
    "no-type": {"kind": "ready"},
    "type-number": {"type": 7},
}
raw_bodies = {
    "duplicate-key": b'{"type":"a","type":"b"}',
    "nested-duplicate": b'{"type":"results","results":{"x":1,"x":2}}',
    "deep": b'{"type":"results","results":' + b"[" * 12 + b"]" * 12 + b"}",
    "trailing": b'{"type":"ready"} x',
    "truncated-json": b'{"type":"hel',
    "bad-utf8": b'{"type":"\xff\xfe"}',
    "overflow-number": b'{"type":"params","params":{"x":1e400},"timeout_ms":1000}',
    "array": b'["type","ready"]',
}

os.makedirs(out, exist_ok=True)
for name in os.listdir(out):
    os.remove(os.path.join(out, name))


def write(name: str, data: bytes) -> None:
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


for name, obj in {**valid, **hostile_bodies}.items():
    write(f"frame-{name}", frame(j(obj)))
    write(f"body-{name}", j(obj))
for name, body in raw_bodies.items():
    write(f"frame-{name}", frame(body))
    write(f"body-{name}", body)
write("garbage-http", b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
write("garbage-perftest", b"0000:000123:abcdef:00001234:00007f0012345000:fe:80:00:00:00:00:00:00:52:54:00:ff:fe:12:34:56")
write("length-oversized", b"QPSX" + struct.pack(">I", 65537) + b"{}")
write("length-zero", b"QPSX" + struct.pack(">I", 0))
write("length-huge", b"QPSX\xff\xff\xff\xff")
write("header-short", b"QPS")
write("frame-short-body", b"QPSX" + struct.pack(">I", 100) + b'{"type":"hel')
write("frame-long-body", frame(j({"type": "ready"})) + b"extra")
