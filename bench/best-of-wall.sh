#!/bin/bash
# The wall time and cost of one build-test run, single and --best-of 3, as a user feels them: a scripted
# exec builder whose every turn takes 4 s (a model's pace), a 1 s quality suite in each attempt's
# worktree. Attempts 1 and 3 write 40 and 55 lines, attempt 2 writes 12: attempt 2 wins on fewest
# changed lines. Usage: `npm run build && bash bench/best-of-wall.sh` (prints one line per run).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$ROOT/node_modules/.bin:$PATH" SSSF_SANDBOX=off
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/sssf-best-of-wall-XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT

turn() { # attempt file lines cost match
  local content
  content=$(for i in $(seq 1 "$3"); do printf 'line %s of attempt %s\\n' "$i" "$1"; done)
  printf '{%s "delay_ms": 4000, "tool_calls": [{"tool": "write", "write_file": {"path": "%s", "content": "%s"}}], "usage": {"input_tokens": 12000, "output_tokens": 800, "cost": %s}, "reply": "{\\"status\\":\\"success\\",\\"summary\\":\\"attempt %s\\",\\"changed_files\\":[\\"%s\\"],\\"commit_message\\":\\"add %s\\"}"}' \
    "$5" "$2" "$content" "$4" "$1" "$2" "$2"
}

run_once() { # N
  local n=$1 repo="$SCRATCH/repo-$1" agents="$SCRATCH/agents-$1" turns
  mkdir -p "$repo/adws/adw_data/prompt_engineering/builder" "$repo/adws/adw_sssf_config" "$agents"
  printf '# {{adw_id}} agent\n\nDo the task, then reply with the JSON report.\n' >"$repo/adws/adw_data/prompt_engineering/builder/system.md"
  printf '# Task\n\n{{prompt}}\n\n{{previous_envelope}}\n' >"$repo/adws/adw_data/prompt_engineering/builder/user.md"
  if [ "$n" = 1 ]; then
    turns="$(turn 1 feature.txt 12 0.021 '')"
  else
    turns="$(turn 1 feature.txt 40 0.024 '"match_cwd": "attempt-1",'),$(turn 2 feature.txt 12 0.019 '"match_cwd": "attempt-2",'),$(turn 3 feature.txt 55 0.027 '"match_cwd": "attempt-3",')"
  fi
  echo "{\"turns\": [$turns]}" >"$agents/builder.script.json"
  cat >"$repo/adws/adw_sssf_config/sssf.config.yaml" <<YAML
agents:
  - name: builder
    coding_agent: exec
    command: [node, $ROOT/dist/testing/scripted-agent.js, $agents/builder.script.json]
quality:
  test: { command: [sh, -c, "sleep 1; test -e feature.txt"] }
YAML
  printf 'adws/adw_data/sessions/\nadws/adw_data/*.db*\nadws/adw_data/.worktrees/\n' >"$repo/.gitignore"
  (cd "$repo" && git init -q -b main && git add -A && git -c user.name=b -c user.email=b@b commit -qm start)
  local flag=() start end
  [ "$n" != 1 ] && flag=(--best-of "$n")
  start=$(date +%s%N)
  (cd "$repo" && node "$ROOT/dist/cli/main.js" run build-test "add the feature" "${flag[@]}" --json >"$SCRATCH/out-$n.json" 2>"$SCRATCH/err-$n.txt") || true
  end=$(date +%s%N)
  node -e '
    const [file, n, ms] = process.argv.slice(1);
    const s = JSON.parse(require("node:fs").readFileSync(file, "utf8"));
    console.log(`best-of ${n}: wall ${(ms / 1e9).toFixed(1)} s, accepted ${s.accepted}, cost $${(s.cost_usd ?? 0).toFixed(3)}`);
  ' "$SCRATCH/out-$n.json" "$n" "$((end - start))"
  if [ "$n" != 1 ]; then
    local adw
    adw=$(node -e 'console.log(JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8")).adw_id)' "$SCRATCH/out-$n.json")
    (cd "$repo" && node "$ROOT/dist/cli/main.js" phases "$adw" | grep -E "attempt [0-9]/" || true)
  fi
}

run_once 1
run_once 3
