#!/usr/bin/env bash
# End-to-end test of the encode package against a REAL Ollama server.
#
#   .ci/ollama-e2e.sh            build (cached) + generate model + serve + create + test + stop
#   .ci/ollama-e2e.sh build      only build (or reuse) the ollama binary
#
# What it does:
#   1. builds `ollama` v0.17.4 from the Go module proxy (cgo, CPU only) into a cache dir,
#      applying the build fix for headers that Go module zips omit (llama.cpp's vendor/):
#      nlohmann-json3-dev + libstb-dev from apt, and a tiny miniaudio stub header written here;
#   2. generates two tiny random-weight llama GGUFs (seeds 1 and 5) with ollama's own
#      Go GGUF writer (go run ./internal/tinygguf/gen), deterministic, never committed;
#   3. starts `ollama serve` on a free loopback port with an isolated OLLAMA_MODELS/HOME and
#      OLLAMA_NO_CLOUD=1, registers the models with `ollama create`;
#   4. runs `go test -tags ollama_e2e -run OllamaE2E ./encode/` with OLLAMA_E2E_HOST/OLLAMA_E2E_MODEL;
#   5. always stops the server by its pid (trap), and removes the per-run temp dir.
#
# Environment knobs:
#   DARWIN_MEMO_OLLAMA_CACHE  cache dir (default $HOME/.cache/darwin-memo-ollama): bin/, go-build/, include/
#   OLLAMA_E2E_KEEP=1         keep the per-run temp dir (server log, model) for debugging
#   OLLAMA_E2E_SKIP_BUILD_FAILURE=1  exit 0 with a loud SKIP message when the server cannot be built
#   OLLAMA_E2E_TESTFLAGS      extra flags for go test (default: -count=1 -v)
#   OLLAMA_E2E_PKG            package to test (default ./encode/)
#   OLLAMA_E2E_NEW_ENGINE=1   serve with ollama's Go engine instead of the llama.cpp runner
#
# Exit status: 0 pass (or loud skip, see above), 1 failure (the reason is printed last),
# 130/143 when interrupted (the server and any running step are stopped either way).
set -euo pipefail

OLLAMA_VERSION=v0.17.4
MODEL_NAME=darwin-memo-tiny
MODEL_SEEDS=(1 5)
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${DARWIN_MEMO_OLLAMA_CACHE:-${HOME}/.cache/darwin-memo-ollama}"
BIN_DIR="$CACHE/bin"
OLLAMA_BIN="$BIN_DIR/ollama"
STAMP="$BIN_DIR/ollama.stamp"
INC_DIR="$CACHE/include"

log() { printf '[ollama-e2e %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { printf '[ollama-e2e] FAIL: %s\n' "$*" >&2; exit 1; }

# write_if_changed FILE: writes stdin to FILE only when the content differs, so the
# path and bytes of the stub header stay stable (a changed CGO_CPPFLAGS or header
# would rebuild every cgo package).
write_if_changed() {
	local tmp
	tmp="$(mktemp)"
	cat >"$tmp"
	if [[ -f "$1" ]] && cmp -s "$tmp" "$1"; then
		rm -f "$tmp"
	else
		mv "$tmp" "$1"
	fi
}

# miniaudio stub: llama.cpp's tools/mtmd/mtmd-helper.cpp includes "miniaudio/miniaudio.h"
# from llama.cpp's vendor/ dir, which Go module zips drop and Debian does not package.
# Declare exactly what mtmd-helper.cpp uses, every call failing: only audio input for
# multimodal models is lost, which a text-only CPU test never needs.
write_miniaudio_stub() {
	mkdir -p "$INC_DIR/miniaudio"
	write_if_changed "$INC_DIR/miniaudio/miniaudio.h" <<'EOF'
/* darwin-memo-action: stub of miniaudio for building ollama without llama.cpp's vendor/ dir.
 * Every function fails with MA_ERROR; audio input for multimodal models is unavailable. */
#ifndef DARWIN_MEMO_MINIAUDIO_STUB_H
#define DARWIN_MEMO_MINIAUDIO_STUB_H
#include <stddef.h>
#include <stdint.h>
typedef uint64_t ma_uint64;
typedef uint32_t ma_uint32;
typedef int ma_result;
#define MA_SUCCESS 0
#define MA_ERROR (-1)
typedef enum { ma_format_unknown = 0, ma_format_f32 = 5 } ma_format;
typedef struct { ma_format format; ma_uint32 channels; ma_uint32 sampleRate; } ma_decoder_config;
typedef struct { int unused; } ma_decoder;
static inline ma_decoder_config ma_decoder_config_init(ma_format f, ma_uint32 ch, ma_uint32 rate) {
	ma_decoder_config c; c.format = f; c.channels = ch; c.sampleRate = rate; return c;
}
static inline ma_result ma_decoder_init_memory(const void *d, size_t n, const ma_decoder_config *c, ma_decoder *dec) {
	(void)d; (void)n; (void)c; (void)dec; return MA_ERROR;
}
static inline ma_result ma_decoder_get_length_in_pcm_frames(ma_decoder *dec, ma_uint64 *n) {
	(void)dec; if (n) *n = 0; return MA_ERROR;
}
static inline ma_result ma_decoder_read_pcm_frames(ma_decoder *dec, void *out, ma_uint64 n, ma_uint64 *read) {
	(void)dec; (void)out; (void)n; if (read) *read = 0; return MA_ERROR;
}
static inline ma_result ma_decoder_uninit(ma_decoder *dec) { (void)dec; return MA_SUCCESS; }
#endif
EOF
}

ensure_system_headers() {
	local missing=()
	[[ -f /usr/include/nlohmann/json_fwd.hpp ]] || missing+=(nlohmann-json3-dev)
	[[ -f /usr/include/stb/stb_image.h ]] || missing+=(libstb-dev)
	command -v g++ >/dev/null || missing+=(g++)
	((${#missing[@]} == 0)) && return 0
	if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
		log "installing build headers: ${missing[*]}"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null ||
			{ apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; } ||
			return 1
	else
		log "missing build prerequisites: ${missing[*]} (install them: apt-get install -y ${missing[*]})"
		return 1
	fi
}

# stamp_value: what the cached binary was built from; a change forces a rebuild.
stamp_value() {
	printf '%s %s %s\n' "$OLLAMA_VERSION" "$(go env GOVERSION)" \
		"$(sha256sum "$INC_DIR/miniaudio/miniaudio.h" | cut -c1-16)"
}

# run_wait DIR CMD...: runs CMD in DIR in its own process group (setsid keeps
# the pid, as this script has no job control) and waits for it. bash runs traps
# only between foreground commands, so a long step run this way still lets
# Ctrl-C or a CI cancel stop everything at once: cleanup kills the group.
CHILD_PID=""
run_wait() {
	local dir=$1 rc=0
	shift
	(cd "$dir" && exec setsid "$@") &
	CHILD_PID=$!
	wait "$CHILD_PID" || rc=$?
	CHILD_PID=""
	return "$rc"
}

WORK=""
SERVER_PID=""
cleanup() {
	local rc=$?
	if [[ -n "$CHILD_PID" ]] && kill -0 "$CHILD_PID" 2>/dev/null; then
		kill -TERM -- "-$CHILD_PID" 2>/dev/null || true
		log "interrupted: stopped pid $CHILD_PID and its children"
	fi
	if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
		# The server runs in its own session (setsid), so its process group id is its
		# pid: TERM the group (server + its model runner), then KILL after 10 s.
		kill -TERM -- "-$SERVER_PID" 2>/dev/null || true
		for _ in $(seq 100); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
		kill -KILL -- "-$SERVER_PID" 2>/dev/null || true
		log "stopped ollama serve (pid $SERVER_PID)"
	fi
	if [[ -n "$WORK" ]]; then
		if ((rc != 0)) && [[ -f "$WORK/serve.log" ]]; then
			log "last lines of the server log ($WORK/serve.log):"
			tail -n 40 "$WORK/serve.log" >&2 || true
		fi
		if [[ "${OLLAMA_E2E_KEEP:-}" == 1 ]] || ((rc != 0)); then
			log "kept $WORK"
		else
			rm -rf -- "$WORK"
		fi
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

build_ollama() {
	write_miniaudio_stub
	if [[ -x "$OLLAMA_BIN" && -f "$STAMP" && "$(cat "$STAMP")" == "$(stamp_value)" ]]; then
		log "ollama $OLLAMA_VERSION cached at $OLLAMA_BIN"
		return 0
	fi
	ensure_system_headers || return 1
	mkdir -p "$BIN_DIR" "$CACHE/go-build"
	# One build at a time per cache dir; a second run waits, then reuses the binary.
	exec 9>"$CACHE/build.lock"
	flock 9
	if [[ -x "$OLLAMA_BIN" && -f "$STAMP" && "$(cat "$STAMP")" == "$(stamp_value)" ]]; then
		log "ollama $OLLAMA_VERSION built meanwhile by another run"
		exec 9>&-
		return 0
	fi
	rm -f "$STAMP"
	log "building ollama $OLLAMA_VERSION (cgo, CPU only; cold 5-10 min on 2 idle cores, log: $CACHE/build.log)"
	local start=$SECONDS rc=0
	# GOFLAGS is cleared so a repo-level -mod=... does not leak into `go install pkg@version`.
	run_wait "$CACHE" env GOFLAGS= GOWORK=off CGO_ENABLED=1 \
		CGO_CPPFLAGS="-I$INC_DIR" GOCACHE="$CACHE/go-build" GOBIN="$BIN_DIR" \
		go install "github.com/ollama/ollama@$OLLAMA_VERSION" >"$CACHE/build.log" 2>&1 || rc=$?
	if ((rc != 0)); then
		tail -n 30 "$CACHE/build.log" >&2
		log "ollama build failed after $((SECONDS - start)) s (exit $rc; full log: $CACHE/build.log)"
		exec 9>&-
		return 1
	fi
	stamp_value >"$STAMP"
	exec 9>&-
	log "built ollama in $((SECONDS - start)) s"
}

case "${1:-}" in
build)
	build_ollama || die "could not build ollama $OLLAMA_VERSION"
	exit 0
	;;
"") ;;
*) die "unknown argument '$1' (usage: .ci/ollama-e2e.sh [build])" ;;
esac

command -v go >/dev/null || die "go is not on PATH"
T0=$SECONDS
timings=()
phase() { timings+=("$1=$((SECONDS - $2))s"); }

# 1. the server binary
t=$SECONDS
if ! build_ollama; then
	if [[ "${OLLAMA_E2E_SKIP_BUILD_FAILURE:-}" == 1 ]]; then
		printf '[ollama-e2e] SKIP: the real-Ollama e2e test did NOT run: ollama %s could not be built (see above)\n' "$OLLAMA_VERSION" >&2
		exit 0
	fi
	die "could not build ollama $OLLAMA_VERSION (set OLLAMA_E2E_SKIP_BUILD_FAILURE=1 to skip instead)"
fi
phase build "$t"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/darwin-memo-ollama-e2e.XXXXXX")"

# 2. the models: the default seed (on the llama.cpp runner it answers the
#    encoder with zero lessons) and seed 5 (it starts a gibberish lesson and is
#    cut at num_predict, so the encoder must fall back).
t=$SECONDS
for seed in "${MODEL_SEEDS[@]}"; do
	(cd "$REPO_ROOT" && go run ./internal/tinygguf/gen -seed "$seed" -o "$WORK/seed$seed") >&2 ||
		die "could not generate the tiny GGUF model (seed $seed)"
done
phase gen "$t"

# 3. serve on a loopback port the kernel picks (port 0), isolated from any other
#    Ollama: own models dir, own HOME (the server writes its key there), no cloud.
t=$SECONDS
mkdir -p "$WORK/home" "$WORK/models"
# Only the ollama processes get the isolated HOME: go itself must keep its caches.
ollama_env=(env -u OLLAMA_ORIGINS -u OLLAMA_AUTH -u OLLAMA_MODELS -u OLLAMA_HOST
	HOME="$WORK/home" OLLAMA_MODELS="$WORK/models" OLLAMA_NO_CLOUD=1
	OLLAMA_NUM_PARALLEL=1 OLLAMA_MAX_LOADED_MODELS=1 OLLAMA_KEEP_ALIVE=10m)
if [[ -n "${OLLAMA_E2E_NEW_ENGINE:-}" ]]; then ollama_env+=(OLLAMA_NEW_ENGINE="$OLLAMA_E2E_NEW_ENGINE"); fi
setsid "${ollama_env[@]}" OLLAMA_HOST=127.0.0.1:0 "$OLLAMA_BIN" serve >"$WORK/serve.log" 2>&1 &
SERVER_PID=$!
echo "$SERVER_PID" >"$WORK/serve.pid"
addr=""
for _ in $(seq 300); do
	kill -0 "$SERVER_PID" 2>/dev/null || die "ollama serve exited during startup"
	addr="$(sed -n 's/.*Listening on \(127\.0\.0\.1:[0-9][0-9]*\).*/\1/p' "$WORK/serve.log" | head -n 1)"
	[[ -n "$addr" ]] && break
	sleep 0.1
done
[[ -n "$addr" ]] || die "ollama serve did not report a listening address within 30 s"
ollama_env+=(OLLAMA_HOST="$addr")
for _ in $(seq 100); do
	"${ollama_env[@]}" "$OLLAMA_BIN" --version >/dev/null 2>&1 && break
	sleep 0.1
done
"${ollama_env[@]}" "$OLLAMA_BIN" --version >&2 || die "ollama serve at $addr does not answer"
log "ollama serve pid $SERVER_PID on http://$addr"
phase serve "$t"

# 4. register the model (the client uploads the blob, then POST /api/create)
#    num_thread 1: ggml's worker threads spin at every barrier, which on a busy
#    2-core runner makes 2 threads 3-10 times slower than 1 for a model this small.
t=$SECONDS
models=()
for seed in "${MODEL_SEEDS[@]}"; do
	name="$MODEL_NAME"
	[[ "$seed" == "${MODEL_SEEDS[0]}" ]] || name="$MODEL_NAME-s$seed"
	printf '%s\n' \
		'FROM ./tiny.gguf' \
		'TEMPLATE """{{- range .Messages }}<|{{ .Role }}|>{{ .Content }}' \
		'{{ end }}<|assistant|>"""' \
		'PARAMETER num_ctx 8192' \
		'PARAMETER num_thread 1' \
		'PARAMETER temperature 0' \
		'PARAMETER seed 1' >"$WORK/seed$seed/Modelfile"
	(cd "$WORK/seed$seed" && "${ollama_env[@]}" "$OLLAMA_BIN" create "$name" -f Modelfile) >"$WORK/create.log" 2>&1 ||
		{ cat "$WORK/create.log" >&2; die "ollama create $name failed"; }
	models+=("$name")
done
phase create "$t"

# 5. the test
t=$SECONDS
read -r -a testflags <<<"${OLLAMA_E2E_TESTFLAGS:--count=1 -v}"
run_wait "$REPO_ROOT" env OLLAMA_E2E_HOST="http://$addr" OLLAMA_E2E_MODEL="$(IFS=,; echo "${models[*]}")" \
	go test -tags ollama_e2e -run 'OllamaE2E' "${testflags[@]}" "${OLLAMA_E2E_PKG:-./encode/}" ||
	die "the real-Ollama e2e test failed (server log: $WORK/serve.log)"
phase test "$t"
phase total "$T0"
log "PASS (${timings[*]})"
