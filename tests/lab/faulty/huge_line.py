#!/usr/bin/env python3
"""Faulty adapter: replies to hello with a valid JSON object on one line of 2 MiB (over the
1 MiB limit, a protocol error)."""
import json
import sys

for line in sys.stdin:
    request = json.loads(line)
    reply = {"id": request.get("id"), "hello": "fencing-lab-adapter", "language": "python",
             "padding": ""}
    short = len(json.dumps(reply, separators=(",", ":")))
    reply["padding"] = "x" * (2 * 1024 * 1024 - short)  # the line is exactly 2 MiB, newline aside
    sys.stdout.write(json.dumps(reply, separators=(",", ":")) + "\n")
    sys.stdout.flush()
