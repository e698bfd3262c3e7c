#!/usr/bin/env bash
# The clients as a user installs them, not as the repository holds them:
#  - Python: `python -m build` makes the sdist and the wheel; the wheel (with py.typed) is
#    installed into fresh virtual environments, one with the `test` extra and one with `rl,test`,
#    which run the client's tests and the READMEs' Python examples against the release binary;
#    mypy checks that every function of the installed package has type hints and that a user's
#    code type-checks against it (py.typed).
#  - JavaScript: `npm pack` makes the tarball, its TypeScript types generated from
#    protocol/schema.json on the way (scripts/gen-types.mjs); the tarball is installed into an
#    empty project, where examples/typed.ts type-checks with `tsc --strict` and runs against the
#    release binary over TCP and WebSocket.
# Only PyPI and npm packages; everything lands under target/package-test/.
#   scripts/test-package.sh [python|js]      (both when no argument is given)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
use_release_binary
work="$PWD/target/package-test"
mkdir -p "$work"
what=${1:-all}

# Starts `yomi serve` with the given listeners on free loopback ports, waits until it listens,
# and sets SERVER_PID and TCP_PORT (and HTTP_PORT when it serves HTTP). The log is $work/serve.log.
start_server() {
  "$YOMI_BIN" serve "$@" </dev/null 2>"$work/serve.log" &
  SERVER_PID=$!
  for _ in $(seq 300); do
    TCP_PORT=$(grep -oP 'listening on 127\.0\.0\.1:\K\d+' "$work/serve.log" | head -1 || true)
    HTTP_PORT=$(grep -oP 'http://127\.0\.0\.1:\K\d+' "$work/serve.log" | head -1 || true)
    if [[ -n $TCP_PORT && ( $* != *--http* || -n $HTTP_PORT ) ]]; then return; fi
    sleep 0.1
  done
  echo "yomi serve did not start:" >&2
  cat "$work/serve.log" >&2
  exit 1
}

stop_server() {
  kill -TERM "$SERVER_PID"
  wait "$SERVER_PID"
}

python_package() {
  local tools="$work/tools" dist="$work/dist" base="$work/venv-wheel" rl="$work/venv-wheel-rl"
  echo "== Python: build the sdist and the wheel"
  [[ -x $tools/bin/mypy ]] || { python3 -m venv "$tools" && "$tools/bin/pip" install --quiet build mypy; }
  rm -rf "$dist" && "$tools/bin/python" -m build --outdir "$dist" clients/python >"$work/build.log" 2>&1
  local wheel sdist
  wheel=$(ls "$dist"/yomi_client-*.whl) sdist=$(ls "$dist"/yomi_client-*.tar.gz)
  [[ $(python3 -m zipfile -l "$wheel") == *yomi_client/py.typed* ]] || { echo "no py.typed in $wheel"; exit 1; }
  [[ $(tar tzf "$sdist") == *src/yomi_client/py.typed* ]] || { echo "no py.typed in $sdist"; exit 1; }
  ls -l "$wheel" "$sdist" | awk '{print "  " $5 " bytes  " $NF}'

  echo "== Python: the wheel with [test] in a fresh venv"
  rm -rf "$base" && python3 -m venv "$base"
  "$base/bin/pip" install --quiet "$wheel[test]"
  # The tests import the installed package: neither clients/python nor the tests put src/ on the path.
  (cd clients/python && "$base/bin/python" - "$base" <<'PY'
import sys, yomi_client
assert yomi_client.__file__.startswith(sys.argv[1]), f"yomi_client comes from {yomi_client.__file__}"
print(f"  yomi_client from {yomi_client.__file__}")
PY
  )
  (cd clients/python && "$base/bin/pytest" -q -p no:cacheprovider)

  echo "== Python: mypy on the installed package (every function typed) and on a user's code"
  rm -rf "$rl" && python3 -m venv "$rl"
  "$rl/bin/pip" install --quiet "$wheel[rl,test]"
  local examples="$work/examples-python"
  rm -rf "$examples"
  mapfile -t blocks < <(python3 scripts/readme-examples.py python "$examples" README.md clients/python/README.md)
  (cd "$work" && "$tools/bin/mypy" --python-executable "$rl/bin/python" --no-incremental \
      --disallow-untyped-defs --disallow-incomplete-defs -p yomi_client | sed "s/^/  /")
  (cd "$work" && "$tools/bin/mypy" --python-executable "$base/bin/python" --no-incremental --strict \
      "$examples"/README-L*.python --scripts-are-modules 2>&1 | sed 's/^/  /') \
      || { echo "a README example does not type-check against the installed package"; exit 1; }

  echo "== Python: the READMEs' examples against a server"
  start_server --tcp 127.0.0.1:0
  for block in "${blocks[@]}"; do
    if grep -q 'bot.run()' "$block"; then
      # An engine: yomi runs it and checks it as it checks a plugin's bot.
      local name
      name=$(grep -oP 'Engine\("\K[^"]+' "$block")
      echo "-- $block: engine/$name under yomi check"
      "$YOMI_BIN" --no-engines-file --engine "$name=$rl/bin/python $block" check "engine/$name" | tail -1
    elif grep -q 'yomi_client.envs' "$block"; then
      echo "-- $block: with the rl extra"
      (cd "$work" && "$rl/bin/python" "$block")
    else
      echo "-- $block: against yomi serve --tcp 127.0.0.1:$TCP_PORT"
      sed "s/7878/$TCP_PORT/g" "$block" > "$block.run.py"
      (cd "$work" && "$base/bin/python" "$block.run.py")
    fi
  done
  for example in battle stud_hand; do
    echo "-- clients/python/examples/$example.py"
    "$base/bin/python" "clients/python/examples/$example.py" 127.0.0.1 "$TCP_PORT" | tail -2
  done
  stop_server

  echo "== Python: the rl extra from the wheel (RL environments' tests and the example)"
  (cd clients/python && "$rl/bin/pytest" -q -p no:cacheprovider tests/test_envs.py tests/test_envs_encodings.py tests/test_parallel_env.py)
  "$rl/bin/python" clients/python/examples/rl_stud.py --steps 100 | tail -1
}

# The version of a devDependency of clients/js, so the empty project uses the same one.
js_dev_version() {
  node -p "require('$PWD/clients/js/package.json').devDependencies['$1']"
}

js_package() {
  local npm_dir="$work/npm" project="$work/js-project"
  echo "== JavaScript: npm pack (types generated from protocol/schema.json)"
  (cd clients/js && npm ci --no-audit --no-fund --loglevel=error)
  rm -rf "$npm_dir" && mkdir -p "$npm_dir"
  local tarball
  tarball="$npm_dir/$(cd clients/js && npm pack --pack-destination "$npm_dir" --silent | tail -1)"
  local listing
  listing=$(tar tzf "$tarball")
  for file in package/src/yomi.js package/src/engine.js package/types/yomi.d.ts package/types/engine.d.ts \
      package/types/protocol.d.ts; do
    [[ $listing == *"$file"* ]] || { echo "$file is missing from $tarball"; exit 1; }
  done
  ls -l "$tarball" | awk '{print "  " $5 " bytes  " $NF}'

  echo "== JavaScript: the tarball in an empty project, examples/typed.ts under tsc --strict"
  local typescript
  typescript=$(js_dev_version typescript)
  rm -rf "$project" && mkdir -p "$project"
  cat > "$project/package.json" <<'JSON'
{ "name": "yomi-package-test", "private": true, "type": "module" }
JSON
  cat > "$project/tsconfig.json" <<'JSON'
{ "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext",
    "moduleResolution": "nodenext", "types": ["node"], "outDir": "out" },
  "files": ["typed.ts"] }
JSON
  cp clients/js/examples/typed.ts "$project/"
  (cd "$project" && npm install --no-audit --no-fund --loglevel=error "$tarball" \
      "typescript@$typescript" "@types/node@20" && npx tsc -p . && echo "  tsc: no errors")

  echo "== JavaScript: an operation added to the schema reaches the types with no hand edit"
  # A copy of the installed package whose types come from the schema plus one made-up operation.
  local grown="$work/js-grown"
  rm -rf "$grown" && mkdir -p "$grown/node_modules"
  cp -r "$project/node_modules/yomi-client" "$grown/node_modules/"
  python3 - protocol/schema.json "$grown/schema.json" <<'PY'
import json, sys
schema = json.load(open(sys.argv[1]))
schema["$defs"]["params"]["DemoGrow"] = {"type": "object", "properties": {"size": {"type": "integer"}},
                                         "required": ["size"]}
schema["$defs"]["results"]["DemoGrown"] = {"type": "object", "properties": {"grown": {"type": "boolean"}},
                                           "required": ["grown"]}
schema["operations"]["demo.grow"] = {"params": {"$ref": "#/$defs/params/DemoGrow"},
                                     "result": {"$ref": "#/$defs/results/DemoGrown"}}
json.dump(schema, open(sys.argv[2], "w"))
PY
  node clients/js/scripts/gen-types.mjs "$grown/schema.json" "$grown/node_modules/yomi-client/types/protocol.d.ts" >/dev/null
  cat > "$grown/grown.ts" <<'TS'
import type { Client, Result } from "yomi-client";
export async function grow(yomi: Client): Promise<boolean> {
  // @ts-expect-error: `size` is an integer
  await yomi.request("demo.grow", { size: "big" });
  const reply: Result<"demo.grow"> = await yomi.request("demo.grow", { size: 3 });
  return reply.grown;
}
TS
  cat > "$grown/tsconfig.json" <<'JSON'
{ "compilerOptions": { "strict": true, "target": "es2022", "module": "nodenext",
    "moduleResolution": "nodenext", "types": [], "noEmit": true }, "files": ["grown.ts"] }
JSON
  (cd "$grown" && "$project/node_modules/.bin/tsc" -p . && echo "  tsc: demo.grow is typed")

  echo "== JavaScript: the example against a server, over TCP and WebSocket"
  export YOMI_TOKEN=package-test-token-$RANDOM$RANDOM$RANDOM
  start_server --tcp 127.0.0.1:0 --http 127.0.0.1:0
  (cd "$project" && node out/typed.js "tcp://127.0.0.1:$TCP_PORT" \
      && node --experimental-websocket --no-warnings out/typed.js "ws://127.0.0.1:$HTTP_PORT/ws")
  stop_server
  unset YOMI_TOKEN
}

if [[ $what == all || $what == python ]]; then python_package; fi
if [[ $what == all || $what == js ]]; then js_package; fi
