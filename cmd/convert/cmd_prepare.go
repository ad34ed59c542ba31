package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/contextreceipts/convert/internal/gate"
	"github.com/contextreceipts/convert/internal/outfile"
	"github.com/contextreceipts/convert/internal/prepare"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/urfave/cli/v2"
)

func prepareCommand() *cli.Command {
	return &cli.Command{
		Name:  "prepare",
		Usage: "assemble a PreparedContext from an embedded artifact store, with an optional content-free receipt",
		UsageText: "convert prepare --store DB --scope S [--scope S2...] (--query Q | --query-file F) [--max-bytes N] [--include-receipt]\n" +
			"   [--sections LIST] [--recall-gate [--recall-policy FILE]] [--recall-effort FILE] [--rerank lexical] [--vector] [--otel FILE]\n" +
			"   [--caller NAME] [--hash-key-file FILE] [--timeout DURATION]\n" +
			"convert prepare --store DB --request REQ.json [--recall-gate] ...\n" +
			"convert prepare load --store DB FILE.jsonl...\n" +
			"convert prepare read --store DB [--caller NAME] --scope S --family F --artifact ID --revision N\n" +
			"convert prepare read --store DB [--caller NAME] [--hash-key-file FILE] --scope S --family code --fingerprint F --path P\n" +
			"   --file-sha256 D --start-line N --end-line M --snippet-sha256 D\n" +
			"(check its outputs with convert validate FILE... and convert leakcheck --artifacts FILE.jsonl --query Q FILE...)",
		Description: "Prints the PreparedContext JSON (schema, status, content, content_bytes; receipt only with\n" +
			"--include-receipt). The receipt is validated and leak-checked against the query and every artifact body;\n" +
			"a receipt that cannot be built completely is left out with a content-free message on stderr, and the\n" +
			"output is then exactly the output without --include-receipt; a recall effort that would leak is\n" +
			"withheld the same way. A trace or recall effort file that cannot be written is reported on stderr and\n" +
			"changes neither stdout nor the exit status; a --recall-policy that cannot be read or is invalid turns\n" +
			"the gate off for the run (no expansion), with a message on stderr. --max-bytes is 512-32768 (0 is\n" +
			"refused). The trace fails closed: on a leak nothing is written (exit 3).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "store", Usage: "artifact store `DB` (SQLite file made by prepare load)"},
			&cli.StringSliceFlag{Name: "scope", Usage: "scope `ID`; the first is the current scope, repeat for referenced scopes"},
			&cli.StringFlag{Name: "query", Usage: "the query `TEXT`"},
			&cli.StringFlag{Name: "query-file", Usage: "read the query from `FILE` (for long queries)"},
			&cli.IntFlag{Name: "max-bytes", Value: prepare.DefaultMaxBytes, Usage: "UTF-8 byte budget of content, 512-32768"},
			&cli.BoolFlag{Name: "include-receipt", Usage: "add the receipt (never inject it into a prompt)"},
			&cli.StringFlag{Name: "sections", Usage: "explicit assembly `LIST`: family[:limit],... of memory, topic-memory, experience, profile, code"},
			&cli.StringFlag{Name: "request", Usage: "read the whole request from `REQ.json` instead of the flags above"},
			&cli.BoolFlag{Name: "recall-gate", Usage: "turn on the recall sufficiency gate (policy powercontext.recall-gate.v1)"},
			&cli.StringFlag{Name: "recall-effort", Usage: "write the gate's RecallEffort JSON to `FILE` (needs --recall-gate)"},
			&cli.StringFlag{Name: "rerank", Value: "none", Usage: "Memory reranker: none or lexical (deterministic, non-model)"},
			&cli.BoolFlag{Name: "vector", Usage: "hybrid search: add the store's deterministic hashed-vector channel to FTS"},
			&cli.StringFlag{Name: "otel", Usage: "write an OTLP/JSON trace (span context.prepare, stage events) to `FILE`"},
			&cli.StringFlag{Name: "recall-policy", Usage: "the gate's versioned thresholds and floors as JSON `FILE` (default powercontext.recall-gate.v1)"},
			&cli.StringFlag{Name: "caller", Usage: "the caller `NAME`; a store with grants serves only the scopes granted to it"},
			hashKeyFlag(),
			storeTimeoutFlag(),
		},
		Subcommands: []*cli.Command{prepareLoadCommand(), prepareReadCommand()},
		Action:      prepareAction,
	}
}

// requestFile is the --request document.
type requestFile struct {
	ScopeID        string   `json:"scope_id"`
	ScopeIDs       []string `json:"scope_ids"`
	Query          *string  `json:"query"`
	MaxBytes       *int     `json:"max_bytes"`
	IncludeReceipt *bool    `json:"include_receipt"`
	Assembly       *struct {
		Sections []struct {
			Family string `json:"family"`
			Limit  *int   `json:"limit"`
		} `json:"sections"`
	} `json:"assembly"`
}

func readRequest(path string) (prepare.Request, error) {
	var req prepare.Request
	b, err := os.ReadFile(path)
	if err != nil {
		return req, usageError("--request: cannot read %s", path)
	}
	var rf requestFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rf); err != nil || rf.Query == nil {
		return req, usageError("%s: not a prepare request (scope_id, scope_ids, query, max_bytes, include_receipt, assembly)", path)
	}
	if rf.ScopeID != "" {
		req.ScopeIDs = append(req.ScopeIDs, rf.ScopeID)
	}
	req.ScopeIDs = append(req.ScopeIDs, rf.ScopeIDs...)
	req.Query = *rf.Query
	if rf.MaxBytes != nil {
		req.MaxBytes = *rf.MaxBytes
		if req.MaxBytes == 0 {
			return req, usageError("%s: max_bytes must be 512-32768", path)
		}
	}
	req.IncludeReceipt = rf.IncludeReceipt != nil && *rf.IncludeReceipt
	if rf.Assembly != nil {
		var parts []string
		for _, s := range rf.Assembly.Sections {
			p := s.Family
			if s.Limit != nil {
				p += fmt.Sprintf(":%d", *s.Limit)
			}
			parts = append(parts, p)
		}
		if req.Sections, err = prepare.ParseSections(strings.Join(parts, ",")); err != nil {
			return req, usageError("%s: %v", path, err)
		}
	}
	return req, nil
}

func flagRequest(c *cli.Context) (prepare.Request, error) {
	req := prepare.Request{ScopeIDs: c.StringSlice("scope"), Query: c.String("query"), MaxBytes: c.Int("max-bytes"), IncludeReceipt: c.Bool("include-receipt")}
	if req.MaxBytes == 0 { // the library's "use the default"; on the command line it is a value out of range
		return req, usageError("max_bytes must be %d-%d", prepare.MinMaxBytes, prepare.MaxMaxBytes)
	}
	if c.IsSet("query") == c.IsSet("query-file") {
		return req, usageError("prepare needs exactly one of --query and --query-file")
	}
	if f := c.String("query-file"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return req, usageError("--query-file: cannot read %s", f)
		}
		req.Query = string(b)
	}
	if c.IsSet("sections") {
		var err error
		if req.Sections, err = prepare.ParseSections(c.String("sections")); err != nil {
			return req, usageError("--sections: %v", err)
		}
	}
	return req, nil
}

// openStore opens --store: for load read-write (created if missing), for
// prepare and read read-only, so they never write the store (a missing or
// empty file, or one that is not a store, is refused and left as it was).
func openStore(c *cli.Context, load bool) (*prepare.Store, error) {
	path := c.String("store")
	if path == "" {
		return nil, usageError("--store DB is required")
	}
	if load {
		return prepare.Open(path)
	}
	st, err := prepare.OpenReadOnly(path)
	if errors.Is(err, prepare.ErrStoreLocked) { // not the caller's mistake: a writer held the store too long
		fmt.Fprintf(c.App.ErrWriter, "convert: prepare: --store %s: %v\n", path, err)
		return nil, exitError{exitFailed}
	}
	if err != nil {
		return nil, usageError("--store %s: %v", path, err)
	}
	return st, nil
}

func hashKeyFlag() cli.Flag {
	return &cli.StringFlag{Name: "hash-key-file", EnvVars: []string{"CONVERT_HASH_KEY_FILE"},
		Usage: "keyed digests (HMAC-SHA256) of the query, content and code with the key in `FILE`; also CONVERT_HASH_KEY_FILE"}
}

// prepareHasher reads --hash-key-file (or CONVERT_HASH_KEY_FILE): plain
// sha256 without it.
func prepareHasher(c *cli.Context) (receipt.Hasher, error) {
	kf := c.String("hash-key-file")
	if kf == "" {
		return receipt.Hasher{}, nil
	}
	key, err := os.ReadFile(kf)
	if err != nil {
		return receipt.Hasher{}, usageError("--hash-key-file: cannot read the key file")
	}
	h, err := receipt.NewKeyed([]byte(strings.TrimSpace(string(key))))
	if err != nil {
		return receipt.Hasher{}, usageError("--hash-key-file: %v", err)
	}
	return h, nil
}

// prepareRequest is the request of --request or of the flags, validated.
func prepareRequest(c *cli.Context) (prepare.Request, error) {
	var req prepare.Request
	var err error
	if c.IsSet("request") {
		for _, f := range []string{"scope", "query", "query-file", "max-bytes", "include-receipt", "sections"} {
			if c.IsSet(f) {
				return req, usageError("--request cannot be combined with --%s", f)
			}
		}
		req, err = readRequest(c.String("request"))
	} else {
		req, err = flagRequest(c)
	}
	if err != nil {
		return req, err
	}
	req.Caller = c.String("caller")
	if err := req.Validate(); err != nil {
		return req, usageError("%v", err)
	}
	return req, nil
}

// prepareOptions is the runtime's configuration: digests, the recall gate
// and its policy, the reranker and the vector channel. The gate fails
// closed (seed 001-17): a --recall-policy that cannot be read or is not a
// valid policy turns it off for the run, and gateOff says why, without
// content; the prepare itself goes on.
func prepareOptions(c *cli.Context) (opt prepare.Options, gateOff string, err error) {
	if opt.Hasher, err = prepareHasher(c); err != nil {
		return opt, "", err
	}
	if c.Bool("recall-gate") {
		g := prepare.DefaultGatePolicy()
		if f := c.String("recall-policy"); f != "" {
			if b, rerr := os.ReadFile(f); rerr != nil {
				gateOff = "recall gate off: --recall-policy: cannot read the file"
			} else if g, rerr = prepare.ParseGatePolicy(b); rerr != nil {
				gateOff = "recall gate off: --recall-policy: " + rerr.Error()
			}
		}
		if gateOff == "" {
			opt.Gate = &g
		}
	} else if c.IsSet("recall-effort") || c.IsSet("recall-policy") {
		return opt, "", usageError("--recall-effort and --recall-policy need --recall-gate")
	}
	switch c.String("rerank") {
	case "none":
	case "lexical":
		opt.Reranker = prepare.LexicalReranker{}
	default:
		return opt, "", usageError("--rerank takes none or lexical")
	}
	if c.Bool("vector") {
		opt.Embedder = prepare.HashEmbedder{}
	}
	return opt, gateOff, nil
}

func prepareAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError("prepare takes no arguments (subcommands: load, read; convert validate and convert leakcheck check its outputs)")
	}
	req, err := prepareRequest(c)
	if err != nil {
		return err
	}
	opt, gateOff, err := prepareOptions(c)
	if err != nil {
		return err
	}
	st, err := openStore(c, false)
	if err != nil {
		return err
	}
	defer st.Close()
	ctx, cancel := storeContext(c)
	defer cancel()
	res, err := prepare.NewRuntime(st, opt).Prepare(ctx, req)
	// The leak check probes the outputs against the query and every body
	// this prepare read: the outputs are made of those rows only.
	bodies := res.Bodies
	switch {
	case c.Context.Err() != nil:
		return interrupted(c)
	case ctx.Err() != nil:
		return storeTimedOut(c, "prepare")
	case errors.Is(err, prepare.ErrCallerRequired):
		return usageError("--caller: %v", err)
	case errors.Is(err, prepare.ErrNotAuthorized):
		fmt.Fprintln(c.App.ErrWriter, "convert: prepare: "+err.Error())
		return exitError{exitFailed}
	case err != nil:
		return failSafe(c, "prepare: "+err.Error(), req.Query, bodies, exitFailed)
	}
	if gateOff != "" {
		res.Diagnostic = strings.TrimPrefix(res.Diagnostic+"; "+gateOff, "; ")
	}
	out, err := prepare.Render(res, req, bodies, c.IsSet("otel"))
	var le *gate.LeakError
	var se *gate.SchemaError
	switch {
	case errors.As(err, &le):
		for _, f := range le.Findings {
			fmt.Fprintf(c.App.ErrWriter, "convert: prepare: leak: %s in %s\n", f.What, f.Where)
		}
		fmt.Fprintln(c.App.ErrWriter, "convert: prepare: leak check failed, nothing written")
		return exitError{exitLeak}
	case errors.As(err, &se):
		fmt.Fprintln(c.App.ErrWriter, "convert: prepare: "+se.Error())
		return exitError{exitSchema}
	case err != nil:
		return failSafe(c, "prepare: "+err.Error(), req.Query, bodies, exitFailed)
	}
	if c.Context.Err() != nil { // the last moment to stop with nothing written
		return interrupted(c)
	}
	// The trace and the recall effort are diagnostics sinks: one that
	// cannot be written is swallowed with a content-free message and never
	// blocks the injection or its exit status (seed 001).
	if f := c.String("otel"); f != "" {
		if err := outfile.Write(f, out.Trace); err != nil {
			fmt.Fprintf(c.App.ErrWriter, "convert: prepare: trace not written: cannot write the --otel file: %v (the injection is unaffected)\n", err)
		}
	}
	if f := c.String("recall-effort"); f != "" && out.Effort != nil {
		if err := outfile.Write(f, out.Effort); err != nil {
			fmt.Fprintf(c.App.ErrWriter, "convert: prepare: recall effort not written: cannot write the --recall-effort file: %v (the injection is unaffected)\n", err)
		}
	}
	if out.Diagnostic != "" {
		fmt.Fprintln(c.App.ErrWriter, "convert: prepare: "+out.Diagnostic)
	}
	_, err = c.App.Writer.Write(out.Context)
	return err
}

// storeTimeoutFlag bounds the time of a prepare's store queries: a store
// damaged or built to stall (a query that never ends) fails the command
// instead of hanging the agent that asked (issue #49, stores with bounds).
// A 1M-artifact store answers in well under a second (make bench).
func storeTimeoutFlag() cli.Flag {
	return &cli.DurationFlag{Name: "timeout", Value: 10 * time.Second,
		Usage: "bound the store's queries to `DURATION` in all; past it nothing is written (exit 1)"}
}

// storeContext is the command's context bounded by --timeout (Ctrl-C still
// ends it first).
func storeContext(c *cli.Context) (context.Context, context.CancelFunc) {
	if d := c.Duration("timeout"); d > 0 {
		return context.WithTimeout(c.Context, d)
	}
	return context.WithCancel(c.Context)
}

// storeTimedOut ends a command whose store queries passed --timeout, with
// nothing written.
func storeTimedOut(c *cli.Context, cmd string) error {
	fmt.Fprintf(c.App.ErrWriter, "convert: %s: the store's queries took longer than %s (--timeout): the store is damaged, built to stall, or too large; nothing written\n", cmd, c.Duration("timeout"))
	return exitError{exitFailed}
}

// interrupted ends a prepare that Ctrl-C (or SIGTERM) stopped: exit 130, as
// convert run, with nothing written.
func interrupted(c *cli.Context) error {
	fmt.Fprintln(c.App.ErrWriter, "convert: prepare: interrupted; nothing written")
	return exitError{exitInterrupted}
}

// failSafe prints msg unless it would carry the query or a body (an engine
// error can quote its input); then a generic message stands in.
func failSafe(c *cli.Context, msg, query string, bodies []string, code int) error {
	if f, err := prepare.LeakCheck([]prepare.Named{{Name: "stderr", Doc: []byte(msg)}}, query, bodies, nil); err != nil || len(f) > 0 {
		msg = "prepare failed (message withheld: it would carry raw input)"
	}
	fmt.Fprintln(c.App.ErrWriter, "convert: "+msg)
	return exitError{code}
}

func prepareLoadCommand() *cli.Command {
	return &cli.Command{
		Name:      "load",
		Usage:     "import artifacts JSONL into the store (created if missing); a bad line imports nothing from its file",
		UsageText: "convert prepare load --store DB FILE.jsonl...",
		Flags:     []cli.Flag{&cli.StringFlag{Name: "store", Usage: "artifact store `DB`"}},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageError("prepare load needs at least one FILE.jsonl")
			}
			st, err := openStore(c, true)
			if err != nil {
				return err
			}
			defer st.Close()
			for _, f := range c.Args().Slice() {
				fh, err := os.Open(f)
				if err != nil {
					fmt.Fprintf(c.App.ErrWriter, "convert: prepare load: cannot read %s\n", f)
					return exitError{exitFailed}
				}
				stats, err := st.Load(fh, f)
				fh.Close()
				if err != nil {
					fmt.Fprintln(c.App.ErrWriter, "convert: prepare load: "+err.Error())
					return exitError{exitFailed}
				}
				fmt.Fprintf(c.App.Writer, "%s: %d revisions, %d entries, %d lifecycle changes, %d grants\n", f, stats.Revisions, stats.Entries, stats.Lifecycle, stats.Grants)
			}
			return nil
		},
	}
}

func prepareReadCommand() *cli.Command {
	return &cli.Command{
		Name: "read",
		Usage: "exact read of one recorded artifact revision (historical revisions stay readable after forget, merge, retire)\n" +
			"or of one code range; a revision that was never recorded and one the caller may not read fail alike",
		UsageText: "convert prepare read --store DB [--caller NAME] [--hash-key-file FILE] --scope S --family F --artifact ID --revision N\n" +
			"   [--entry ID] [--entry-version ID]\n" +
			"convert prepare read --store DB [--caller NAME] [--hash-key-file FILE] --scope S --family code --fingerprint F --path P\n" +
			"   --file-sha256 D --start-line N --end-line M --snippet-sha256 D\n" +
			"(ids and digests of a keyed receipt are read with the --hash-key-file it was made with; without it they are refused)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "store", Usage: "artifact store `DB`"},
			&cli.StringFlag{Name: "caller", Usage: "the caller `NAME` (required once the store has grants)"},
			&cli.StringFlag{Name: "scope", Required: true, Usage: "scope `ID`"},
			&cli.StringFlag{Name: "family", Required: true, Usage: "atomic-memory, topic-memory, experience, profile or code"},
			&cli.StringFlag{Name: "artifact", Usage: "artifact `ID`"},
			&cli.IntFlag{Name: "revision", Usage: "exact revision `N`"},
			&cli.StringFlag{Name: "entry", Usage: "only the entry `ID` (atomic memory), as the receipt records it"},
			&cli.StringFlag{Name: "entry-version", Usage: "only the entry version `ID` (atomic memory), as the receipt records it"},
			&cli.StringFlag{Name: "fingerprint", Usage: "code: repository fingerprint"},
			&cli.StringFlag{Name: "path", Usage: "code: repository-relative path"},
			&cli.StringFlag{Name: "file-sha256", Usage: "code: file digest as the receipt records it"},
			&cli.IntFlag{Name: "start-line", Usage: "code: first line"},
			&cli.IntFlag{Name: "end-line", Usage: "code: last line"},
			&cli.StringFlag{Name: "snippet-sha256", Usage: "code: snippet digest as the receipt records it"},
			hashKeyFlag(),
			storeTimeoutFlag(),
		},
		Action: prepareRead,
	}
}

// prepareRead is prepare read's action: the flags checked, the store
// opened read-only with the caller's access, then a code range
// (prepareReadCode) or an artifact revision (prepareReadArtifact) read.
func prepareRead(c *cli.Context) error {
	code := c.String("family") == prepare.FamilyCode
	need := []string{"artifact", "revision"}
	if code {
		need = []string{"fingerprint", "path", "file-sha256", "start-line", "end-line", "snippet-sha256"}
	}
	for _, f := range need {
		if !c.IsSet(f) {
			return usageError("prepare read --family %s needs --%s", c.String("family"), strings.Join(need, ", --"))
		}
	}
	h, err := prepareHasher(c)
	if err != nil {
		return err
	}
	st, err := openStore(c, false)
	if err != nil {
		return err
	}
	defer st.Close()
	ctx, cancel := storeContext(c)
	defer cancel()
	acc, err := st.Access(ctx, c.String("caller"))
	if ctx.Err() != nil {
		return storeTimedOut(c, "prepare read")
	}
	if err != nil {
		return usageError("--caller: %v", err)
	}
	// A keyed receipt's ids and digests are HMACs under its key:
	// without that key they cannot be resolved, and saying so beats
	// "no such revision".
	keyed := false
	for _, f := range []string{"artifact", "entry", "entry-version", "path", "file-sha256", "snippet-sha256"} {
		keyed = keyed || prepare.IsKeyedDigest(c.String(f))
	}
	r := prepareReader{c: c, ctx: ctx, st: st, acc: acc, h: h, missingKey: keyed && h.KeyID() == ""}
	if code {
		return r.code()
	}
	return r.artifact()
}

// prepareReader is one prepare read: its flags, store, access and hasher,
// and whether the ids are keyed while no key was given.
type prepareReader struct {
	c          *cli.Context
	ctx        context.Context // the store's queries' (storeContext)
	st         *prepare.Store
	acc        prepare.Access
	h          receipt.Hasher
	missingKey bool
}

func (r prepareReader) needKey() error {
	return usageError("prepare read: the receipt is keyed (hmac-sha256 ids and digests): pass the --hash-key-file (or CONVERT_HASH_KEY_FILE) it was made with")
}

func (r prepareReader) fail(err error) error {
	if r.ctx.Err() != nil && r.c.Context.Err() == nil {
		return storeTimedOut(r.c, "prepare read")
	}
	fmt.Fprintln(r.c.App.ErrWriter, "convert: prepare read: "+err.Error())
	return exitError{exitFailed}
}

// code reads the code range the flags name and prints it with its
// reference.
func (r prepareReader) code() error {
	c := r.c
	if r.missingKey {
		return r.needKey()
	}
	ref := prepare.CodeRef{ScopeID: c.String("scope"), Fingerprint: c.String("fingerprint"), Path: c.String("path"), FileSHA256: c.String("file-sha256"),
		StartLine: c.Int("start-line"), EndLine: c.Int("end-line"), SnippetSHA256: c.String("snippet-sha256")}
	snippet, err := r.st.ReadCode(r.ctx, r.acc, r.h, ref)
	if err != nil {
		return r.fail(err)
	}
	b, _ := json.Marshal(struct {
		Code    prepare.CodeRef `json:"code_evidence"`
		Snippet string          `json:"snippet"`
	}{ref, snippet})
	fmt.Fprintln(c.App.Writer, string(b))
	return nil
}

// artifact reads the artifact revision the flags name (resolving keyed
// ids with the key) and prints its entries, or the ones --entry and
// --entry-version pick.
func (r prepareReader) artifact() error {
	c, h := r.c, r.h
	a := prepare.Address{ScopeID: c.String("scope"), Family: c.String("family"), ArtifactID: c.String("artifact"), Revision: c.Int("revision")}
	stored := a
	var err error
	if h.KeyID() != "" && prepare.IsKeyedDigest(a.ArtifactID) {
		if stored, err = r.st.ResolveKeyed(r.ctx, r.acc, h, a); err != nil {
			return r.fail(err)
		}
	}
	rev, err := r.st.Read(r.ctx, r.acc, stored)
	if err != nil && r.missingKey && r.ctx.Err() == nil {
		return r.needKey()
	}
	if err != nil {
		return r.fail(err)
	}
	// Entry ids are shown as the receipt records them: keyed with
	// the key, in clear without it.
	shown := func(id string) string {
		if h.KeyID() != "" && id != "" {
			return h.Text(id)
		}
		return id
	}
	var entries []prepare.Candidate
	for _, e := range rev.Entries {
		if want := c.String("entry"); want != "" && want != e.EntryID && want != shown(e.EntryID) {
			continue
		}
		if want := c.String("entry-version"); want != "" && want != e.EntryVersionID && want != shown(e.EntryVersionID) {
			continue
		}
		entries = append(entries, e)
	}
	if len(entries) == 0 {
		if r.missingKey {
			return r.needKey()
		}
		return r.fail(prepare.ErrUnavailable)
	}
	type entry struct {
		EntryID        string `json:"entry_id,omitempty"`
		EntryVersionID string `json:"entry_version_id,omitempty"`
		Body           string `json:"body"`
	}
	doc := struct {
		Address   prepare.Address `json:"artifact_address"`
		HeadState string          `json:"head_state"`
		Head      int             `json:"head_revision"`
		Entries   []entry         `json:"entries"`
	}{Address: a, HeadState: rev.State, Head: rev.Head}
	for _, e := range entries {
		doc.Entries = append(doc.Entries, entry{shown(e.EntryID), shown(e.EntryVersionID), e.Body})
	}
	b, _ := json.Marshal(doc)
	fmt.Fprintln(c.App.Writer, string(b))
	return nil
}
