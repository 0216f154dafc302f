# Sourced by the suites that drive the real sparsetable-server with a client (node_client,
# google_system): starts the debug binary the server suite built (or $SERVER_BIN) on 127.0.0.1 with --port 0
# and waits (up to 30 s) for the line it prints once it listens.
#
#   start_server DIR [ARGS...]
#                      sets server_pid, server_log and addr (host:port, empty if the server
#                      did not start); ARGS go to the server (e.g. --gc-mode background). It
#                      may be called again for a second server: an EXIT trap stops them all.

server_pids=()
start_server() {
  local dir=$1 out
  shift
  mkdir -p "$dir"
  out=$dir/server.stdout
  server_log=$dir/server.log
  "${SERVER_BIN:-$ROOT/target/debug/sparsetable-server}" --host 127.0.0.1 --port 0 "$@" >"$out" 2>"$server_log" &
  server_pid=$!
  server_pids+=("$server_pid")
  trap 'for p in "${server_pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done' EXIT
  addr=
  for _ in $(seq 1 300); do
    addr=$(sed -n 's/^export BIGTABLE_EMULATOR_HOST=//p' "$out")
    [ -n "$addr" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
}
