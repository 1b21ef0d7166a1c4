#!/usr/bin/env bash
# rag-eval-pytest as a row of the peer bench (../shared/peer-bench), without editing it, the
# way its README's "Adding the new tool" says: its fake judge (fake_llm_server.py) with the
# same settings as its RESULTS.md, its 30 cases (make_dataset.py), our command (zero-code
# mode, and our test module test_rag_cases.py: the four judgements per dataset line) measured
# by its peer_command.py with expect.json, and the rows printed by its make_table.py. The peers are not run (their
# numbers are in its RESULTS.md) and no venv is set up: the project's .venv runs our side.
#
#   bash benchmarks/peer_bench/run.sh
#   BENCH_N=5 LATENCY_MS=0 bash benchmarks/peer_bench/run.sh     # quick check
#
# SDK_IMPORTED=1 starts pytest from `python -c "import anthropic, pytest; pytest.main(...)"`,
# so the SDK is imported before pytest starts, the way the bench times the peers (imports
# outside their timed evaluate() call); the script also prints pytest's session time (the
# JSON report's run.duration_s): the command less the interpreter's start and end.
#
# JUDGE=cascade measures the cascade judge (the local judge first, the bench's fake as its LLM
# tier for what the local judge does not decide: one request per case at most, expect-cascade.json).
#
# Knobs: JUDGE (anthropic), MODES ("zero-code module", see below), SDK_IMPORTED (0), PEER_BENCH (../shared/peer-bench),
# PYTHON (.venv/bin/python), BENCH_N (30), LATENCY_MS (300), MAX_CONCURRENCY (8), ARRAY_LEN (2), EXTRA_WORDS (0),
# RUN_DIR (a new /tmp/rag-eval-peer.XXXXXX). The fake listens on 127.0.0.1 only and is
# stopped by its PID when this script exits.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PEER_BENCH="$(cd "${PEER_BENCH:-$ROOT/../shared/peer-bench}" && pwd)"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
BENCH_N="${BENCH_N:-30}"
JUDGE="${JUDGE:-anthropic}"
EXPECT="$HERE/expect.json"
[[ "$JUDGE" == cascade ]] && EXPECT="$HERE/expect-cascade.json"
LATENCY_MS="${LATENCY_MS:-300}"
MAX_CONCURRENCY="${MAX_CONCURRENCY:-8}"
ARRAY_LEN="${ARRAY_LEN:-2}"
EXTRA_WORDS="${EXTRA_WORDS:-0}"
RUN_DIR="${RUN_DIR:-$(mktemp -d /tmp/rag-eval-peer.XXXXXX)}"
mkdir -p "$RUN_DIR"
echo "run dir: $RUN_DIR"

python3 "$PEER_BENCH/make_dataset.py" --n "$BENCH_N" --out "$RUN_DIR/dataset.jsonl"
# The plugin validates its datasets strictly: the bench's `marker` and `meta` go to `metadata`.
python3 - "$RUN_DIR/dataset.jsonl" "$RUN_DIR/cases.jsonl" <<'PY'
import json, sys
with open(sys.argv[1]) as src, open(sys.argv[2], "w") as out:
    for line in filter(str.strip, src):
        row = json.loads(line)
        case = {k: row[k] for k in ("id", "question", "contexts", "answer", "ground_truth")}
        case["metadata"] = {"marker": row["marker"], **row.get("meta", {})}
        out.write(json.dumps(case) + "\n")
PY

SERVER_ARGS="--latency-ms $LATENCY_MS --max-concurrency $MAX_CONCURRENCY --array-len $ARRAY_LEN --extra-words $EXTRA_WORDS"
# shellcheck disable=SC2086
python3 "$PEER_BENCH/fake_llm_server.py" --port 0 --port-file "$RUN_DIR/port" $SERVER_ARGS \
  --log-file "$RUN_DIR/requests.jsonl" --max-lifetime-s 1800 > "$RUN_DIR/server.log" 2>&1 &
SERVER_PID=$!
cleanup() {
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
}
trap cleanup EXIT
for _ in $(seq 1 50); do [[ -s "$RUN_DIR/port" ]] && break; sleep 0.1; done
SERVER="http://127.0.0.1:$(cat "$RUN_DIR/port")"
python3 - "$SERVER" <<'PY'
import sys, urllib.request
assert urllib.request.urlopen(sys.argv[1] + "/health", timeout=5).read() == b"ok"
PY
echo "fake server pid $SERVER_PID at $SERVER ($SERVER_ARGS)"

# MODES: "zero-code" (no test module: the plugin's zero-code mode checks its default metrics,
# the same four judged ones, on every case) and "module" (test_rag_cases.py: one test per line
# calling evaluate() for the four metrics). Both by default, each measured on its own.
MODES="${MODES:-zero-code module}"
VERSION="$("$PYTHON" -c 'from importlib.metadata import version; print(version("rag-eval-pytest"))')"
if [[ "${SDK_IMPORTED:-0}" == 1 ]]; then
  PYTEST=("$PYTHON" -c 'import sys, anthropic, pytest; sys.exit(pytest.main(sys.argv[1:]))')
else
  PYTEST=("$PYTHON" -m pytest)
fi
RESULTS=()
for MODE in $MODES; do
  case "$MODE" in
    module) TESTS=("$HERE/test_rag_cases.py") ;;
    zero-code) TESTS=() ;;
    *) echo "MODES holds zero-code and/or module, not $MODE" >&2; exit 2 ;;
  esac
  OUT="$RUN_DIR/result-rag-eval-pytest-$MODE.json"
  LOG="$RUN_DIR/rag-eval-pytest-$MODE.log"
  OFFSET=$(stat -c %s "$RUN_DIR/requests.jsonl" 2>/dev/null || echo 0)
  mkdir -p "$RUN_DIR/suite-$MODE"
  echo "== rag-eval-pytest[$MODE] (log: $LOG)"
  # pytest runs in its own folder with this folder's empty pytest.ini, so the project's own
  # pytest settings (pyproject.toml) stay out. Exit 1 means some cases scored below a
  # threshold: judged results, not errors (the bench's README says so; its peer_command.py
  # would count any non-zero exit), so it is passed on as 0. Test errors still count
  # through the JUnit XML.
  (cd "$RUN_DIR/suite-$MODE" && python3 "$PEER_BENCH/peer_command.py" \
    --tool "rag-eval-pytest[$MODE]" --version "$VERSION" \
    --metrics "faithfulness,answer_relevance,context_precision,context_recall" \
    --dataset "$RUN_DIR/dataset.jsonl" --server "$SERVER" --log-file "$RUN_DIR/requests.jsonl" \
    --out "$OUT" --expect "$EXPECT" --junit-xml "$RUN_DIR/$MODE.xml" -- \
    bash -c '"$@"; rc=$?; [[ $rc == 1 ]] && exit 0; exit $rc' judged-failures-are-results \
    "${PYTEST[@]}" -q -p no:cacheprovider -p no:randomly \
    -c "$HERE/pytest.ini" --rootdir "$RUN_DIR/suite-$MODE" --junitxml "$RUN_DIR/$MODE.xml" \
    --rag-dataset "$RUN_DIR/cases.jsonl" --rag-judge "$JUDGE" --rag-judge-passes 1 \
    --rag-no-cache "${TESTS[@]}" > "$LOG" 2>&1) \
    || { echo "peer_command failed; see $LOG"; tail -20 "$LOG"; exit 1; }
  grep -E '^\[|^  (ok|BAD)' "$LOG" || true
  # Per step, from the bench's request log: first asks and corrective re-asks apart (every
  # step shares one system prompt, so the bench's "kind" cannot tell them apart).
  python3 - "$RUN_DIR/requests.jsonl" "$OFFSET" "$OUT" <<'PY'
import json, sys
from collections import defaultdict
STEPS = {
    "This request holds": "several metrics / a bundle of one case's questions",
    "Break the ANSWER into standalone statements": "faithfulness / statement_support",
    "Write questions that the ANSWER answers": "answer_relevance / generated_questions",
    "For EACH of the CONTEXTS": "context_precision / context_usefulness",
    "For EACH numbered sentence of the GROUND TRUTH": "context_recall / ground_truth_attribution",
}
result = json.load(open(sys.argv[3]))
n = result["n_cases"]
rows = defaultdict(lambda: [0, 0, 0, 0, 0])  # first asks, re-asks, in, in of first asks, out
with open(sys.argv[1]) as fh:
    fh.seek(int(sys.argv[2]))
    for record in map(json.loads, filter(str.strip, fh)):
        step = next((v for k, v in STEPS.items() if k in record["prompt"]), record["kind"][:60])
        reask = "Your previous reply to this task was rejected" in record["prompt"]
        row = rows[step]
        row[1 if reask else 0] += 1
        row[2] += record["in_tok"]
        row[3] += 0 if reask else record["in_tok"]
        row[4] += record["out_tok"]
print("| step | first asks per case | re-asks per case | input tokens per case "
      "| of which first asks | output tokens per case |")
print("|---|---|---|---|---|---|")
total = [0, 0, 0, 0, 0]
for step, row in sorted(rows.items()):
    total = [a + b for a, b in zip(total, row)]
    print(f"| {step} | {row[0] / n:.2f} | {row[1] / n:.2f} | {row[2] / n:.0f} "
          f"| {row[3] / n:.0f} | {row[4] / n:.0f} |")
print(f"| all | {total[0] / n:.2f} | {total[1] / n:.2f} | {total[2] / n:.0f} "
      f"| {total[3] / n:.0f} | {total[4] / n:.0f} |")
print(f"junit: {result.get('junit')}; steps check: {result['verification']['ok']}")
PY
  python3 - "$RUN_DIR/suite-$MODE/results/eval_report.json" <<'PY'
import json, sys
print(f"pytest session (eval_report.json run.duration_s): {json.load(open(sys.argv[1]))['run']['duration_s']:.2f} s")
PY
  RESULTS+=("$OUT")
  echo
done

python3 "$PEER_BENCH/make_table.py" --results "${RESULTS[@]}" --dataset "$RUN_DIR/dataset.jsonl"
echo
echo "peers (../shared/peer-bench/RESULTS.md, same cases): deepeval 4.3.1 11.00 requests and"
echo "4941 input tokens per case; ragas 0.4.3 6.60 requests and 5653 input tokens per case"
echo "raw results, request log, pytest logs: $RUN_DIR"
