#!/usr/bin/env bash
# Hand-run measurement of `sparsetable-server export`/`import` on a data directory (docs/
# benchmarks.md, "Export and import"): time and peak RSS (/usr/bin/time -v) of
#   1. importing an N-row CSV (cbt's layout, value@timestamp) into table t,
#   2. exporting t to Avro (deflate, 1,000,000 rows a part),
#   3. importing that Avro into table u,
#   4. exporting t to Parquet (the Dataflow templates' layout, SNAPPY),
#   5. importing that Parquet into table v.
# Rows: key userNNNNNNN, cf:name (32 bytes), cf:score (8 bytes); every tenth row has a second,
# older version of cf:name. The tables are created through the server (the only step that
# needs it), which is then stopped: export and import open the data directory themselves.
#
# Usage: scripts/bench_migrate.sh [BINARY] [ROWS]   (defaults: target/release/sparsetable-server,
# 1000000). Needs `cbt` (Google Cloud SDK) for the three createtable calls. Not run by CI.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${1:-target/release/sparsetable-server}")
ROWS=${2:-1000000}
WORK=$(mktemp -d /tmp/sparsetable-bench-migrate.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

python3 - "$ROWS" "$WORK/in/t-00000.csv" <<'PY'
import os, sys
rows, path = int(sys.argv[1]), sys.argv[2]
os.makedirs(os.path.dirname(path), exist_ok=True)
ts = 1_700_000_000_000_000
with open(path, "w") as f:
    f.write(",cf,cf\n,name,score\n")
    for i in range(rows):
        key = f"user{i:07d}"
        f.write(f"{key},name-of-{key}-padding-xx@{ts},{i % 100000000:08d}@{ts}\n")
        if i % 10 == 0:
            f.write(f"{key},older-name-{key}-padding@{ts - 1000},\n")
PY

# Create tables t, u and v (family cf) through the server, then stop it.
"$BIN" --port 0 --data-dir "$WORK/data" >"$WORK/server.out" 2>"$WORK/server.err" &
SERVER=$!
for _ in $(seq 50); do grep -q '^export' "$WORK/server.out" 2>/dev/null && break; sleep 0.1; done
HOST=$(sed -n 's/^export BIGTABLE_EMULATOR_HOST=//p' "$WORK/server.out")
touch "$WORK/nocreds"
for t in t u v; do
  BIGTABLE_EMULATOR_HOST=$HOST cbt -creds "$WORK/nocreds" -project p -instance i createtable "$t" families=cf 2>/dev/null
done
kill -TERM "$SERVER"
wait "$SERVER" || true

measure() {
  local label=$1; shift
  /usr/bin/time -v "$@" 2>"$WORK/time.txt" >/dev/null || { cat "$WORK/time.txt"; exit 1; }
  local wall rss summary
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$WORK/time.txt")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$WORK/time.txt")
  summary=$(grep -E '^(exported|imported)' "$WORK/time.txt" | head -n 1)
  printf '%-28s wall %-8s peak RSS %6d MB   %s\n' "$label" "$wall" $((rss / 1024)) "$summary"
}

DD=(--data-dir "$WORK/data" --project p --instance i)
measure "import CSV into t" "$BIN" import "${DD[@]}" --table t --input "$WORK/in" --format csv
measure "export t to Avro" "$BIN" export "${DD[@]}" --table t --output "$WORK/avro"
measure "import Avro into u" "$BIN" import "${DD[@]}" --table u --input "$WORK/avro"
measure "export t to Parquet" "$BIN" export "${DD[@]}" --table t --output "$WORK/parquet" --format parquet
measure "import Parquet into v" "$BIN" import "${DD[@]}" --table v --input "$WORK/parquet"
echo "sizes: CSV $(du -sh "$WORK/in" | cut -f1), Avro $(du -sh "$WORK/avro" | cut -f1), Parquet $(du -sh "$WORK/parquet" | cut -f1), data dir $(du -sh "$WORK/data" | cut -f1)"
