#!/usr/bin/env bash
# Adds rag-eval-pytest as a row of the peer bench (../shared/peer-bench), without editing it:
# starts its fake judge on 127.0.0.1 with the same latency model as RESULTS.md, runs our
# command through its peer_command.py, and prints the row with its make_table.py.
#   PEER_BENCH=../shared/peer-bench BENCH_N=30 LATENCY_MS=300 MAX_CONCURRENCY=8 bash run.sh
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PEER_BENCH="${PEER_BENCH:-$ROOT/../shared/peer-bench}"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
BENCH_N="${BENCH_N:-30}"; LATENCY_MS="${LATENCY_MS:-300}"; MAX_CONCURRENCY="${MAX_CONCURRENCY:-8}"
RUN_DIR="$(mktemp -d /tmp/rag-eval-peer.XXXXXX)"
python3 "$PEER_BENCH/make_dataset.py" --n "$BENCH_N" --out "$RUN_DIR/dataset.jsonl"
python3 "$PEER_BENCH/fake_llm_server.py" --port 0 --port-file "$RUN_DIR/port" \
  --latency-ms "$LATENCY_MS" --max-concurrency "$MAX_CONCURRENCY" \
  --log-file "$RUN_DIR/requests.jsonl" --max-lifetime-s 900 > "$RUN_DIR/server.log" 2>&1 &
SERVER_PID=$!
trap 'kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do [[ -s "$RUN_DIR/port" ]] && break; sleep 0.1; done
SERVER="http://127.0.0.1:$(cat "$RUN_DIR/port")"
VERSION="$("$PYTHON" -c 'from importlib.metadata import version; print(version("rag-eval-pytest"))')"
python3 "$PEER_BENCH/peer_command.py" --tool rag-eval-pytest --version "$VERSION" \
  --metrics "faithfulness,answer_relevance,context_precision,context_recall" \
  --dataset "$RUN_DIR/dataset.jsonl" --server "$SERVER" --log-file "$RUN_DIR/requests.jsonl" \
  --out "$RUN_DIR/result-rag-eval-pytest.json" --junit-xml "$RUN_DIR/suite/junit.xml" -- \
  "$PYTHON" "$HERE/to_dataset.py" "$RUN_DIR/suite"
python3 - "$RUN_DIR/result-rag-eval-pytest.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
keys = ["tool", "requests_total", "requests_per_case", "input_tokens_per_case",
        "output_tokens_per_case", "wall_s", "peak_concurrency", "errors", "judge_span_s"]
print(json.dumps({k: r.get(k) for k in keys}, indent=1))
PY
echo "raw results: $RUN_DIR"
