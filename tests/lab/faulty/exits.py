#!/usr/bin/env python3
"""Faulty adapter: says why on stderr and exits with status 3 at once, before reading anything."""
import sys

sys.stderr.write("boom: cannot start\n")
sys.exit(3)
