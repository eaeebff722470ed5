#!/usr/bin/env python3
"""Faulty adapter: reads requests and never replies (the checker's timeout is a protocol error).

After stdin closes it keeps sleeping for a minute, so a checker that only closes stdin and waits
is caught out: it has to kill the program."""
import sys
import time

for line in sys.stdin:
    pass
time.sleep(60)
