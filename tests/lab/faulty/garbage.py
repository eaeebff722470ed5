#!/usr/bin/env python3
"""Faulty adapter: replies to hello with a line that is not JSON (a protocol error)."""
import sys

for line in sys.stdin:
    sys.stdout.write("hello there, fencing-lab!\n")
    sys.stdout.flush()
