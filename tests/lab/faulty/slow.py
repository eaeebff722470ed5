#!/usr/bin/env python3
"""Faulty adapter: a program that answers every request, each just inside its time. It says
hello, then takes 30 ms for each answer; on its own it would keep a check busy for about a quarter
of an hour, so only the check's deadline ends it."""
import json
import sys
import time

for line in sys.stdin:
    request = json.loads(line)
    op = request.get("op")
    if op == "hello":
        reply = {"hello": "fencing-lab-adapter", "language": "python"}
    else:
        time.sleep(0.03)
        reply = {"done": True} if op in ("new", "clock") else {"threw": "slow and wrong"}
    sys.stdout.write(json.dumps(dict({"id": request.get("id")}, **reply)) + "\n")
    sys.stdout.flush()
