# convert: the two commands a newcomer needs are `make demo` (convert the
# bundled samples) and `make test` (everything CI runs).
GO      ?= go
BIN     ?= bin/convert
OUT     ?= out

.PHONY: build demo test test-short test-fleet golden lint check clean bench

build:
	$(GO) build -o $(BIN) ./cmd/convert

# demo converts every good bundled sample, then validates and leak-checks
# what it wrote: the main job, end to end.
demo: build
	@rm -rf $(OUT)
	@set -e; for s in $$(ls -d samples/*/basic.jsonl samples/*/basic 2>/dev/null); do \
	  c=$$(basename $$(dirname $$s)); \
	  $(BIN) run --out $(OUT)/$$c $$s; \
	  outs=$$(find $(OUT)/$$c -name '*.receipt.ndjson' -o -name '*.otel.json'); \
	  $(BIN) validate $$outs; \
	  $(BIN) leakcheck --converter $$c $$(find $$s -name '*.jsonl' -o -name '*.meta.json' | sed 's/^/--input /') $$outs; \
	done
	@echo "receipts and traces are in $(OUT)/<converter>/"

# test is what CI runs: vet and format check, then every test (race detector on).
test: lint
	$(GO) test -race -count=1 ./...

test-short:
	$(GO) test -count=1 ./...

# test-fleet builds the fleet Collector (tools/fleet, its own module: contrib's
# load-balancing exporter; about 5 min cold on 2 cores, seconds cached) and runs
# its integration test: a front and two back Collectors on loopback, every
# sample exported through the front, one back end restarted mid-run.
FLEET_BIN ?= bin/otelcol-fleet
test-fleet: build
	cd tools/fleet && $(GO) build -trimpath -o $(abspath $(FLEET_BIN)) .
	cd tools/fleet && OTELCOL_FLEET_BIN=$(abspath $(FLEET_BIN)) CONVERT_BIN=$(abspath $(BIN)) $(GO) test -count=1 -v .

# golden rewrites golden/<converter>/<case>.* from samples/; review the diff.
golden:
	$(GO) test ./converters -run 'TestGolden$$' -count=1 -update

lint:
	$(GO) vet ./...
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi

check: lint test

clean:
	rm -rf bin $(OUT) receipts

# bench generates a deterministic corpus (about BENCH_MB MB of Claude Code and
# Codex logs plus one BENCH_BIG_MB MB session) and measures convert against
# the extract-and-hash baseline, jq and ccusage in the same run; it writes
# bench/results.json and prints a table.
BENCH_MB     ?= 500
BENCH_BIG_MB ?= 1024
bench: build
	$(GO) run ./internal/bench/cmd/bench -convert $(BIN) -total-mb $(BENCH_MB) -big-mb $(BENCH_BIG_MB)

# demo-prepare loads the bundled sample artifacts into a temporary store,
# prints a ready PreparedContext with its receipt, then validates it and
# leak-checks the receipt, recall effort and trace against the query and bodies.
PREPARE_QUERY ?= Why did we choose SQLite for the payments ledger? CANARYQ
.PHONY: demo-prepare
demo-prepare: build
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf $$tmp' EXIT; \
	  $(BIN) prepare load --store $$tmp/store.db samples/prepare/artifacts.jsonl; \
	  $(BIN) prepare --store $$tmp/store.db --scope project:payments --scope project:shared \
	    --query '$(PREPARE_QUERY)' --include-receipt --recall-gate --rerank lexical \
	    --recall-effort $(OUT)/prepare/recall-effort.json --otel $(OUT)/prepare/prepare.otel.json > $$tmp/context.json; \
	  mkdir -p $(OUT)/prepare; cp $$tmp/context.json $(OUT)/prepare/context.json; cat $$tmp/context.json; \
	  $(BIN) prepare validate $(OUT)/prepare/context.json $(OUT)/prepare/recall-effort.json; \
	  $(BIN) validate $(OUT)/prepare/prepare.otel.json; \
	  $(BIN) prepare leakcheck --artifacts samples/prepare/artifacts.jsonl --query '$(PREPARE_QUERY)' \
	    $(OUT)/prepare/context.json $(OUT)/prepare/recall-effort.json $(OUT)/prepare/prepare.otel.json

# fuzz runs every fuzz target for FUZZTIME each and prints, per target, the
# executions and whether it found anything (a finding is written under the
# package's testdata/fuzz/ and fails the target; plain go test replays it).
FUZZTIME ?= 60s
# Minimizing each new interesting input (60 s by default) ate most of the
# converter targets' time on whole-file inputs: keep it short.
FUZZMINIMIZETIME ?= 2s
FUZZ_TARGETS = ./internal/jsonl:FuzzReader ./internal/leak:FuzzWalker ./internal/leak:FuzzLeakCheck \
	./converters:FuzzScenarioConverters ./converters:FuzzNativeConverters ./internal/prepare:FuzzPrepare
.PHONY: fuzz
fuzz:
	@status=0; for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; name=$${t##*:}; \
	  out=$$($(GO) test $$pkg -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) 2>&1); rc=$$?; \
	  execs=$$(printf '%s\n' "$$out" | grep -o 'execs: [0-9]*' | tail -1 | cut -d' ' -f2); \
	  if [ $$rc -eq 0 ]; then verdict="no finding"; else verdict="FINDING (see $$pkg/testdata/fuzz/$$name)"; status=1; \
	    printf '%s\n' "$$out" | grep -v '^fuzz: elapsed' | head -20; fi; \
	  printf '%-26s %-22s %12s execs  %s\n' "$$name" "$$pkg" "$${execs:-0}" "$$verdict"; \
	done; exit $$status
