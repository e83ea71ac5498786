# Shared by scripts/setup-adapters, test-adapters and other-decoders: which toolchain each
# adapter under adapters/ needs, and whether its install is there. Source it.

# The toolchain an adapter's name calls for (its prefix), or nothing for a folder of the
# user's own.
adapter_kind() {
  case $1 in
    python-*) echo python ;;
    node-*) echo node ;;
    go-*) echo go ;;
    java-*) echo java ;;
    c-*) echo c ;;
    rust-*) echo rust ;;
    hardpack) echo hardpack ;;
  esac
}

# Prints the missing tools of a kind, nothing when all are there.
missing_toolchain() {
  local tools=()
  case $1 in
    python) tools=(python3) ;;
    node) tools=(node npm) ;;
    go) tools=(go) ;;
    java) tools=(java javac mvn) ;;
    c) tools=(cc) ;;
    rust) tools=(cargo) ;;
    hardpack) tools=(cargo) ;;
  esac
  local tool missing=()
  for tool in "${tools[@]}"; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  echo "${missing[*]}"
}

# True when what scripts/setup-adapters installs for the adapter in folder $1 is there.
adapter_installed() {
  local dir=$1
  case $(adapter_kind "$(basename "$dir")") in
    python) [ -x "$dir/.venv/bin/python" ] ;;
    node) [ -d "$dir/node_modules" ] ;;
    go) [ -x "$dir/build/decode" ] ;;
    java) [ -f "$dir/build/classes/Decode.class" ] ;;
    c) [ -x "$dir/build/decode" ] ;;
    rust) [ -x "$dir/build/release/decode" ] ;;
    hardpack) [ -x "$dir/../../target/release/hardpack" ] ;;
    *) [ -x "$dir/run" ] ;;
  esac
}

# True when the adapter has a stream reuse mode: its run script's usage line reads
# `# run FILE [VALID]`.
adapter_reuses() {
  grep -q '^# run FILE \[VALID\]' "$1/run"
}
