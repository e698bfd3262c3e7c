# Shared by the test scripts (sourced, not run): the release binary they test, and the Python
# client installed with its extras into a private venv.

# Exports YOMI_BIN (the release binary unless set), building the workspace when it is missing.
use_release_binary() {
  export YOMI_BIN="${YOMI_BIN:-$PWD/target/release/yomi}"
  if [[ ! -x "$YOMI_BIN" ]]; then
    cargo build --release --workspace
  fi
}

# Makes the venv $1 with the Python client's extras $2 (e.g. "test" or "rl,test") from PyPI, once
# per set of extras, and installs this checkout's client into it afresh.
client_venv() {
  local venv=$1 extras=$2
  if [[ "$(cat "$venv/.yomi-extras" 2>/dev/null)" != "$extras" ]]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --upgrade pip
    "$venv/bin/pip" install --quiet "./clients/python[$extras]"
    echo "$extras" > "$venv/.yomi-extras"
  fi
  "$venv/bin/pip" install --quiet --no-deps --force-reinstall ./clients/python
}
