#!/bin/bash
# Session 24 (issue 20), after session24_a: the same call at 8467a0d (the fused kernel's lean copies in a loop of
# their own; config.lean_copies since 11d8348), archived as session24_b.
ARCHIVE=session24_b exec bash lab/device_runs/session24_a.sh "$@"
