#!/usr/bin/env bash
# supervise.sh RESTARTS COMMAND [ARG...] runs COMMAND, and runs it again
# whenever it exits, after the kubelet's restart back-off for a container:
# 10 s, doubled at each exit up to 5 minutes, and 10 s again once the
# command has run for 10 minutes. The file RESTARTS holds how many times it
# was restarted. SIGTERM stops the command, then the supervision.
set -u
restarts_file=$1
shift
restarts=0
delay=10
child=
echo "$restarts" >"$restarts_file"
trap '[[ -n $child ]] && kill -TERM "$child" 2>/dev/null; wait; exit 0' TERM INT
while :; do
  started=$SECONDS
  "$@" &
  child=$!
  wait "$child"
  status=$?
  child=
  ran=$((SECONDS - started))
  if ((ran >= 600)); then
    delay=10
  fi
  restarts=$((restarts + 1))
  echo "$restarts" >"$restarts_file"
  echo "supervise: $1 exited with $status after ${ran}s; restart $restarts in ${delay}s" >&2
  # In the background, so that SIGTERM ends the wait at once.
  sleep "$delay" &
  wait $!
  delay=$((delay * 2 > 300 ? 300 : delay * 2))
done
