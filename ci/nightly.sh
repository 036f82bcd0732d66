#!/usr/bin/env bash
# The nightly fuzzing campaign: a time-boxed rotating campaign (every seed
# runs its own profile, Vecz choices string and extra width, see
# fuzz/rotation.py, so a night exercises every choice and profile) and a
# Csmith campaign, every new failure signature reduced into corpus/, and the
# reports (with the configuration matrix each covered) kept next to the journals.
#
#   ci/nightly.sh [SECONDS_PER_CAMPAIGN] [OUTDIR]
#
# Environment: VECZ_NIGHTLY_JOBS (default: all cores), VECZ_NIGHTLY_SEED
# (default: derived from the date, so every night explores new seeds and a
# night is reproducible), VECZ_FUZZ_SCHEDULER (a Dask scheduler address).
# Exit 1 if a failure was found (its reduced case is in corpus/ for review).
set -euo pipefail

SECONDS_PER_CAMPAIGN="${1:-1800}"
OUT="${2:-nightly-$(date +%Y%m%d)}"
JOBS="${VECZ_NIGHTLY_JOBS:-0}"
SEED="${VECZ_NIGHTLY_SEED:-$(( $(date +%Y%m%d) * 1000 ))}"
mkdir -p "$OUT"

extra=()
if [[ -n "${VECZ_FUZZ_SCHEDULER:-}" ]]; then
  extra+=(--scheduler "$VECZ_FUZZ_SCHEDULER")
fi

status=0
for campaign in rotating csmith; do
  echo "== vecz-fuzz: $campaign campaign, ${SECONDS_PER_CAMPAIGN}s, first seed $SEED" >&2
  source_args=()
  if [[ "$campaign" == csmith ]]; then source_args=(--source csmith); fi
  # --resume: a nightly that was killed continues where it stopped when re-run.
  vecz-fuzz run "${source_args[@]}" --seed "$SEED" --time "$SECONDS_PER_CAMPAIGN" \
    --jobs "$JOBS" --journal "$OUT/$campaign.jsonl" --resume \
    --corpus corpus --reduce-time 300 --json "${extra[@]}" \
    > "$OUT/$campaign.json" || rc=$?
  rc="${rc:-0}"
  if [[ "$rc" -eq 1 ]]; then status=1; elif [[ "$rc" -ne 0 ]]; then exit "$rc"; fi
  unset rc
  python - "$OUT/$campaign.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{r['seeds']} kernels, {r['configurations']} configurations, "
      f"{r['throughput']:.2f}/s; statuses {r['summary']}")
for axis, counts in r.get("coverage", {}).items():
    if counts:
        print(f"  {axis}: " + ", ".join(f"{k}: {n}" for k, n in counts.items()))
for f in r["failures"]:
    print(f"  {f['count']}x {f['signature']} (seed {f['seed']})")
for x in r.get("reduced", []):
    print(f"  reduced {x['signature']}: {x.get('before')} -> {x.get('after')} {x.get('path') or x.get('error')}")
PY
done
git status --short corpus/ || true
exit "$status"
