# convert: the two commands a newcomer needs are `make demo` (convert the
# bundled samples) and `make test` (everything CI runs).
GO      ?= go
BIN     ?= bin/convert
OUT     ?= out

.PHONY: build demo test test-short golden lint check clean

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
