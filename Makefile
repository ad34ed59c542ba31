# convert: the two commands a newcomer needs are `make demo` (convert the
# bundled samples) and `make test` (everything CI runs).
GO      ?= go
BIN     ?= bin/convert
OUT     ?= out

.PHONY: build demo test test-short test-poison golden lint check clean bench test-jaeger test-fleet

# The commit goes into convert --version (the Go build information has none
# with -buildvcs=false).
COMMIT  ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)

# A static binary without urfave/cli's doc generators (markdown, man):
# linking them adds about 2.5 ms to every start, which each hook call and
# each one-line conversion pays. Nothing in convert uses cgo or them.
build:
	CGO_ENABLED=0 $(GO) build -tags urfave_cli_no_docs -ldflags "-X main.commit=$(COMMIT)" -o $(BIN) ./cmd/convert

# demo converts every good bundled sample, then validates and leak-checks
# what it wrote: the main job, end to end.
demo: build
	@rm -rf $(OUT)
	@set -e; for s in $$(ls -d samples/*/basic.jsonl samples/*/basic 2>/dev/null); do \
	  c=$$(basename $$(dirname $$s)); \
	  $(BIN) run --out $(OUT)/$$c $$s; \
	  outs=$$(find $(OUT)/$$c -name '*.receipt.ndjson' -o -name '*.otel.jsonl'); \
	  $(BIN) validate $$outs; \
	  $(BIN) leakcheck --converter $$c --input $$s $$outs; \
	done
	@echo "receipts and traces are in $(OUT)/<converter>/"

# test is what CI runs: vet and format check, the poison build's checks,
# then every test (race detector on). It prints what go test prints, then
# each skipped test and why (internal/testshared/gotest): on a clone
# without ../shared the tests that need it skip, named; with CI set they
# fail. About 4 minutes on 2 cores with warm caches.
GOTEST = GO="$(GO)" $(GO) run ./internal/testshared/gotest
test: lint test-poison
	$(GOTEST) -race -count=1 ./...

# test-poison builds convert with the convertpoison tag (every input line is
# overwritten once converted, every read buffer when its reader is
# released) and holds it to the normal build: the goldens, the fuzz seeds,
# the --reveal names and borrowed-view tests under it, then every sample
# and the seed transcripts converted by both builds, outputs compared byte
# for byte (tools/poison-compare.sh).
POISON_BIN ?= bin/convert-poison
test-poison: build
	$(GO) test -tags convertpoison -count=1 -run 'TestGolden|Reveal|^Fuzz|TestBorrowed|TestConcurrentSessions' $(GOLDEN_PKGS) ./internal/pipeline
	CGO_ENABLED=0 $(GO) build -tags 'urfave_cli_no_docs convertpoison' -o $(POISON_BIN) ./cmd/convert
	tools/poison-compare.sh $(BIN) $(POISON_BIN)

test-short:
	$(GOTEST) -count=1 ./...

# test-jaeger exports the bundled samples with convert run to a real Jaeger v2
# (tools/jaeger, its own module: github.com/jaegertracing/jaeger v1.76.0) and
# reads them back through its query API: spans, parents, events, service
# names, and no duplicates after a second run. The binary is built once into
# JAEGER_BIN (about 10 minutes cold on 2 shared cores, 120 MB) and reused.
JAEGER_BIN ?= $(HOME)/.cache/convert/jaeger-v1.76.0
test-jaeger:
	@if [ ! -x "$(JAEGER_BIN)" ]; then \
	  echo "building Jaeger v2 from tools/jaeger into $(JAEGER_BIN) (once; minutes)"; \
	  mkdir -p "$$(dirname "$(JAEGER_BIN)")"; \
	  (cd tools/jaeger && $(GO) build -trimpath -o "$(JAEGER_BIN)" github.com/jaegertracing/jaeger/cmd/jaeger); \
	fi
	JAEGER_BIN="$(JAEGER_BIN)" $(GO) test -count=1 -run 'TestJaeger$$' -v ./cmd/convert

# test-fleet builds the fleet Collector (tools/fleet, its own module: contrib's
# load-balancing exporter; about 5 min cold on 2 cores, seconds cached) and runs
# its integration test: a front and two back Collectors on loopback, every
# sample exported through the front, one back end restarted mid-run.
FLEET_BIN ?= bin/otelcol-fleet
test-fleet: build
	cd tools/fleet && $(GO) build -trimpath -o $(abspath $(FLEET_BIN)) .
	cd tools/fleet && OTELCOL_FLEET_BIN=$(abspath $(FLEET_BIN)) CONVERT_BIN=$(abspath $(BIN)) $(GO) test -count=1 -v .

# generate regenerates every generated file from its source, in order: the
# scenario index (the registry reads it, so what follows sees every table
# as it is now), the event schemas (from the converters' declarations),
# the gate's vocabulary table (the one committed copy of the program's
# words), the converter tables of the docs, and prepare's REQUIREMENTS
# table. check-generated (CI) fails
# when any of them was stale.
.PHONY: generate check-generated
generate:
	$(GO) generate ./converters/scenarios
	$(GO) generate ./converters/...
	$(GO) generate ./internal/gate
	$(GO) generate ./internal/models
	$(GO) test ./converters -run 'TestReadmeConverters$$' -count=1 -update
	$(GO) test ./internal/prepare -run 'TestRequirements$$' -count=1 -update

check-generated: generate
	@if ! git diff --quiet; then git diff --stat; echo "generated files were stale: run make generate and commit the result"; exit 1; fi

# test-guide follows docs/adding-a-format.md in a scratch copy of the
# checkout with the example reader of converters/testdata/guide (about 2
# minutes): the guide's steps must still add a working reader.
.PHONY: test-guide
test-guide:
	GO="$(GO)" tools/guide-check.sh

# golden rewrites golden/<converter>/<case>.* from samples/; review the diff.
# GOLDEN_PKGS are the packages whose tests hold goldens: those that import
# converters/convtest (which declares -update), each reader's folder among them.
GOLDEN_PKGS = $(shell $(GO) list -f '{{.ImportPath}} {{join .XTestImports " "}}' ./converters/... | awk '/converters\/convtest( |$$)/ {print $$1}')
golden:
	$(GO) test $(GOLDEN_PKGS) -run 'TestGolden$$' -count=1 -update

# jsonschema-diff prints the diff between github.com/santhosh-tekuri/
# jsonschema/v5 v5.3.1 (downloaded through the Go module proxy) and its
# patched copy in internal/jsonschema: the patches its PATCHES.md lists and
# the import-path changes. It fails unless that diff is
# internal/jsonschema/upstream.patch; after a deliberate change,
# JSONSCHEMA_DIFF_UPDATE=1 rewrites that file (review it).
.PHONY: jsonschema-diff
jsonschema-diff:
	@GO=$(GO) tools/jsonschema-diff.sh $(if $(JSONSCHEMA_DIFF_UPDATE),-update)

lint:
	$(GO) vet ./...
	$(GO) run ./tools/borrowcheck converters
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi

check: lint test

clean:
	rm -rf bin $(OUT) receipts

# bench builds a corpus shaped like a real history (BENCH_MB MB of Claude
# Code and Codex sessions, long-tailed sizes, subagent folders, plus one
# BENCH_BIG_MB MB session) from the real transcripts in BENCH_SEEDS, with
# fresh ids per copy, and measures convert against the extract-and-hash
# baseline, ccusage and jq in the same run: a table, and every figure in
# bench/results.json. Quick: make bench BENCH_MB=100 BENCH_BIG_MB=0.
# A full run needs about 3 GB of disk; the corpus is reused while its spec
# is unchanged. The rows a speed target reads are run BENCH_RUNS times
# and the run of median wall time kept. BENCH_FLAGS=-cpuprofile=bench/prof
# profiles the 1-worker runs.
BENCH_MB     ?= 1000
BENCH_BIG_MB ?= 1024
BENCH_SEEDS  ?= ../shared/corpus-seed
BENCH_RUNS   ?= 3
BENCH_FLAGS  ?=
bench: build
	$(GO) run ./internal/bench/cmd/bench -convert $(BIN) -seeds $(BENCH_SEEDS) -total-mb $(BENCH_MB) -big-mb $(BENCH_BIG_MB) -runs $(BENCH_RUNS) $(BENCH_FLAGS)

# bench-quick is make bench for a loop during development: 100 MB, no big
# session, 10 runs of the fixed cost, no jq. Its corpus is built once into
# bench/corpus-quick, beside the full one.
.PHONY: bench-quick
bench-quick: build
	$(GO) run ./internal/bench/cmd/bench -convert $(BIN) -seeds $(BENCH_SEEDS) -dir bench/corpus-quick -total-mb 100 -big-mb 0 -runs $(BENCH_RUNS) -fixed-runs 10 -jq=false $(BENCH_FLAGS)

# bench-report writes a history of REPORT_SESSIONS sessions' receipts and
# traces (copies of the bundled Claude Code and Codex samples, each with its
# own ids and day) and times convert report over it in every format.
REPORT_SESSIONS ?= 3000
.PHONY: bench-report
bench-report: build
	$(GO) run ./internal/report/cmd/reportbench -convert $(BIN) -sessions $(REPORT_SESSIONS)

# report-png rewrites docs/report.png (the README's picture of the HTML
# report) from the bundled Claude Code and Codex samples: TestBrowser renders
# the page in headless Chromium (chromium, chromium-browser or google-chrome
# on PATH) and -update keeps a 1100x900 screenshot. Check it stays small and
# shows no canary or user path.
.PHONY: report-png
report-png:
	$(GO) test ./internal/report -run 'TestBrowser$$' -count=1 -update

# ccusage-figures prints ccusage's per-session token figures for the bundled
# Claude Code, Codex, Gemini CLI, Copilot CLI, OpenCode, pi and OpenClaw samples, to compare with converters/testdata/
# ccusage.json (each reader's TestCcusage, convtest.Ccusage, checks ours against it), and
# for cmd/convert/testdata/fold_history its cross-session totals
# (TestFoldKeyLikeCcusage).
# CCUSAGE is the ccusage executable (npm i ccusage); it needs node and jq.
CCUSAGE ?= bench/.tools/node_modules/.bin/ccusage
.PHONY: ccusage-figures
ccusage-figures:
	tools/ccusage-figures.sh $(CCUSAGE)

# demo-prepare loads the bundled sample artifacts into a temporary store and
# shows what the runtime is for: the plain question of docs/usage.md answered with
# cited context. Then it prints a ready PreparedContext with its receipt,
# validates it and leak-checks the receipt, recall effort and trace against
# the query and bodies; repeats it with keyed digests; and, with the sample
# grants, shows a referenced scope bob may not read left out and his exact
# read of it failing like an unavailable revision.
PREPARE_QUERY ?= Why did we choose SQLite for the payments ledger? CANARYQ
.PHONY: demo-prepare
demo-prepare: build
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; mkdir -p $(OUT)/prepare; \
	  $(BIN) prepare load --store $$tmp/store.db samples/prepare/artifacts.jsonl; \
	  echo '== the headline question, no extra flag'; \
	  $(BIN) prepare --store $$tmp/store.db --scope project:payments --query 'Why did we choose SQLite?'; \
	  echo '== receipt, recall gate, lexical rerank, trace'; \
	  $(BIN) prepare --store $$tmp/store.db --scope project:payments --scope project:shared \
	    --query '$(PREPARE_QUERY)' --include-receipt --recall-gate --rerank lexical \
	    --recall-effort $(OUT)/prepare/recall-effort.json --otel $(OUT)/prepare/prepare.otel.json > $(OUT)/prepare/context.json; \
	  cat $(OUT)/prepare/context.json; \
	  $(BIN) validate $(OUT)/prepare/context.json $(OUT)/prepare/recall-effort.json $(OUT)/prepare/prepare.otel.json; \
	  $(BIN) leakcheck --artifacts samples/prepare/artifacts.jsonl --query '$(PREPARE_QUERY)' \
	    $(OUT)/prepare/context.json $(OUT)/prepare/recall-effort.json $(OUT)/prepare/prepare.otel.json; \
	  echo '== keyed digests (a fresh random key)'; \
	  head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > $$tmp/key; \
	  $(BIN) prepare --store $$tmp/store.db --scope project:payments --query '$(PREPARE_QUERY)' --include-receipt \
	    --hash-key-file $$tmp/key > $(OUT)/prepare/context.keyed.json; \
	  grep -o '"query_digest":"hmac-sha256:[0-9a-f]*"' $(OUT)/prepare/context.keyed.json; \
	  $(BIN) validate $(OUT)/prepare/context.keyed.json; \
	  echo '== authorization: bob may read project:payments only'; \
	  $(BIN) prepare load --store $$tmp/auth.db samples/prepare/artifacts.jsonl samples/prepare/grants.jsonl; \
	  $(BIN) prepare --store $$tmp/auth.db --caller bob --scope project:payments --scope project:shared \
	    --query '$(PREPARE_QUERY)' --include-receipt > $(OUT)/prepare/context.bob.json; \
	  if grep -q project:shared $(OUT)/prepare/context.bob.json; then echo 'denied scope in the result'; exit 1; fi; \
	  if $(BIN) prepare read --store $$tmp/auth.db --caller bob --scope project:shared --family atomic-memory \
	    --artifact mem-storage --revision 1; then echo 'denied read succeeded'; exit 1; fi; \
	  echo 'prepare outputs are in $(OUT)/prepare/'

# bench-prepare times convert prepare as a host calls it (the binary started
# once per request, after one warm-up run per query) on generated stores of
# BENCH_PREPARE_SIZES artifacts in one scope: the median of plain, --vector
# and gate + vector + rerank, and each mode's growth from one size to the
# next. The stores are written to a temporary folder and removed; nothing is
# committed. A million artifacts takes long to generate on 2 cores, so it is
# not in the default: make bench-prepare BENCH_PREPARE_SIZES=100000,1000000.
# BENCH_PREPARE_FLAGS='-dir D -reuse' keeps the stores in D and times them
# again on the next run without generating them.
BENCH_PREPARE_SIZES ?= 10000,100000
BENCH_PREPARE_RUNS  ?= 3
BENCH_PREPARE_FLAGS ?=
.PHONY: bench-prepare
bench-prepare: build
	$(GO) run ./internal/prepare/cmd/benchprep -convert $(BIN) -sizes $(BENCH_PREPARE_SIZES) -runs $(BENCH_PREPARE_RUNS) $(BENCH_PREPARE_FLAGS)

# fuzz runs every fuzz target for FUZZTIME each and prints, per target, the
# executions and whether it found anything (a finding is written under the
# package's testdata/fuzz/ and fails the target; plain go test replays it).
# CI runs fuzz-ci (below): 10 s a target, 20 s for a reader's own, 40 s
# for converters/' whole-input targets.
FUZZTIME ?= 60s
# Minimizing each new interesting input ate most of the converter targets'
# time (quadratic in the input, its executions mostly not counted): keep it
# to 100 executions. A finding is written whether or not it was minimized.
FUZZMINIMIZETIME ?= 100x
# FUZZ_TARGETS are every fuzz target of the module, as pkg:Target, found
# by go test -list in the packages whose tests declare a func Fuzz* (no
# hand-kept list: a reader's targets join by being written). Computed once
# per make, when first used.
FUZZ_PKGS = $(shell grep -rl --include='*_test.go' --exclude-dir=testdata '^func Fuzz' cmd converters internal | xargs -n1 dirname | sort -u | sed 's|^|./|')
FUZZ_TARGETS = $(eval FUZZ_TARGETS := $$(shell $(GO) test -list '^Fuzz' $(FUZZ_PKGS) | \
	awk '/^Fuzz/ {t[n++] = $$$$1} /^ok/ {p = $$$$2; sub("^github.com/contextreceipts/convert", ".", p); for (i = 0; i < n; i++) print p ":" t[i]; n = 0}'))$(FUZZ_TARGETS)
.PHONY: fuzz fuzz-long fuzz-ci
# FUZZ_PIPELINE are the targets that convert a whole input per execution:
# those of converters/ and of every reader's folder. They need more than
# CI's 10 s: replaying their corpus for baseline coverage takes part of it,
# and a finding can take some 10k executions (fuzz prints each target's
# count). fuzz-ci gives converters/' own FUZZTIME_PIPELINE each, a reader's
# FUZZTIME_READER (its corpus is its own samples only: a third of the
# replay), and the other targets 10 s.
FUZZ_PIPELINE = $(filter ./converters:% %:FuzzSamples %:FuzzLogs,$(FUZZ_TARGETS))
FUZZ_READERS = $(filter-out ./converters:%,$(FUZZ_PIPELINE))
FUZZTIME_PIPELINE ?= 40s
FUZZTIME_READER ?= 20s
# FUZZ_OVERLAP are targets whose inputs the readers' own targets make
# alike: FuzzNativeConverters is every reader's FuzzSamples in one (same
# check, same in-memory pipeline). fuzz-ci leaves it out (a finding of its
# is one of a reader's own); go test still replays its corpus, and fuzz
# and fuzz-long still run it.
FUZZ_OVERLAP = ./converters:FuzzNativeConverters
# FUZZ_RUN is the loop both targets run (a shell fragment, so make -n only
# prints it); it leaves the verdict in $$status. A target that fails with
# "context deadline exceeded" and writes no failing input has found
# nothing: that is Go 1.26's fuzz coordinator racing its own -fuzztime
# deadline (go.dev/issue/75804, fixed in Go 1.27). It is run once more and
# told as a flake only if the second run is clean; any written input fails.
FUZZ_ONE = $(GO) test $$pkg -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) 2>&1
FUZZ_RUN = status=0; for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; name=$${t\#\#*:}; note=""; \
	  out=$$($(FUZZ_ONE)); rc=$$?; \
	  if [ $$rc -ne 0 ] && printf '%s\n' "$$out" | grep -q 'context deadline exceeded' && ! printf '%s\n' "$$out" | grep -q 'Failing input written'; then \
	    note=" (a first run hit go.dev/issue/75804, no input)"; out=$$($(FUZZ_ONE)); rc=$$?; fi; \
	  execs=$$(printf '%s\n' "$$out" | grep -o 'execs: [0-9]*' | tail -1 | cut -d' ' -f2); \
	  if [ $$rc -eq 0 ]; then verdict="no finding$$note"; else verdict="FINDING (see $$pkg/testdata/fuzz/$$name)"; status=1; \
	    printf '%s\n' "$$out" | grep -v '^fuzz: elapsed' | head -20; fi; \
	  printf '%-28s %-22s %12s execs  %s\n' "$$name" "$$pkg" "$${execs:-0}" "$$verdict"; \
	done
fuzz:
	@$(FUZZ_RUN); exit $$status

fuzz-ci:
	@$(MAKE) -s fuzz FUZZTIME=10s FUZZ_TARGETS="$(filter-out $(FUZZ_PIPELINE),$(FUZZ_TARGETS))"; a=$$?; \
	$(MAKE) -s fuzz FUZZTIME=$(FUZZTIME_PIPELINE) FUZZ_TARGETS="$(filter-out $(FUZZ_READERS) $(FUZZ_OVERLAP),$(FUZZ_PIPELINE))"; b=$$?; \
	$(MAKE) -s fuzz FUZZTIME=$(FUZZTIME_READER) FUZZ_TARGETS="$(FUZZ_READERS)"; c=$$?; \
	[ $$a -eq 0 ] && [ $$b -eq 0 ] && [ $$c -eq 0 ]

# fuzz-hunt runs the fuzz targets' check without the engine (converters/
# convtest/hunt.go): HUNT seeded inputs per reader from its grammar
# (TestGrammar) and as many edits of its samples (TestMutations), the
# source set by HUNT_SEED. Thousands of inputs a reader in minutes, where
# fuzz-ci's budget reaches a few thousand in all: run it before a
# submission. A failing input is kept in the package's testdata/fuzz/.
HUNT      ?= 3000
HUNT_SEED ?= 1
.PHONY: fuzz-hunt
fuzz-hunt:
	CONVERT_HUNT=$(HUNT) CONVERT_HUNT_SEED=$(HUNT_SEED) $(GO) test -count=1 -timeout 60m -run '^(TestGrammar|TestMutations)$$' ./converters/...

# fuzz-long is fuzz for as long as asked (make fuzz-long FUZZTIME=10m: each
# target that long), then keeps what the engine learnt: the entries of Go's
# cache corpus ($$(go env GOCACHE)/fuzz/<import path>/<Target>/, every input
# that added coverage) not yet in the package's testdata/fuzz/<Target>/, of
# at most FUZZKEEPBYTES bytes, are copied there, where plain go test (and
# make test) replays them. Review them with git status and commit those
# worth keeping; a finding is already there, named by the engine: rename it
# after the bug and fix it.
FUZZKEEPBYTES ?= 16384
fuzz-long:
	@$(FUZZ_RUN); \
	cache=$$($(GO) env GOCACHE)/fuzz; kept=0; \
	for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; name=$${t##*:}; src=$$cache/$$($(GO) list $$pkg)/$$name; dst=$$pkg/testdata/fuzz/$$name; \
	  [ -d "$$src" ] || continue; \
	  for f in "$$src"/*; do \
	    [ -f "$$f" ] && [ ! -e "$$dst/$${f##*/}" ] && [ $$(wc -c < "$$f") -le $(FUZZKEEPBYTES) ] || continue; \
	    mkdir -p "$$dst"; cp "$$f" "$$dst/"; kept=$$((kept+1)); \
	  done; \
	done; \
	echo "fuzz-long: kept $$kept new corpus entries under */testdata/fuzz/ (see git status)"; exit $$status
