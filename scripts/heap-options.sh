#!/bin/sh
# Prints the NODE_OPTIONS for this container. The platform gives the run ACTOR_MEMORY_MBYTES of RAM
# (the base image's own NODE_OPTIONS would allow a 30 GB heap, far past it); half goes to the V8 heap,
# the rest stays for SQLite's page caches, the worker threads' own heaps, script isolates and buffers.
mem="${ACTOR_MEMORY_MBYTES:-1024}"
case "$mem" in
    '' | *[!0-9]*) mem=1024 ;;
esac
heap=$((mem / 2))
if [ "$heap" -lt 128 ]; then heap=128; fi
echo "--max-old-space-size=$heap"
