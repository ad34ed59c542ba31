package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/contextreceipts/convert/internal/receipt"
)

// ManifestName is the file in the output directory that makes runs
// incremental: for each input it remembers the files read (size, mtime,
// sha256) and the settings, so an unchanged input is not converted again.
// It names inputs and files by digests of their paths (pathID), never by
// the paths: a receipts folder is made to be shared, and a path holds the
// user name and the project layout.
const ManifestName = ".convert-manifest.json"

type manifest struct {
	mu   sync.Mutex
	path string
	hash receipt.Hasher // names paths: keyed in keyed mode
	// listed holds the names in each output folder unchanged has looked
	// at, read once per folder (see present).
	listed map[string]map[string]bool
	// refreshed: an unchanged input's entry was updated (a new mtime over
	// the same bytes), so the manifest is saved though nothing converted.
	refreshed bool
	Version   string                   `json:"version"`
	Inputs    map[string]manifestEntry `json:"inputs"`
}

type manifestEntry struct {
	Settings string         `json:"settings"`
	Files    []manifestFile `json:"files"`
	Outputs  []string       `json:"outputs"` // relative to the output directory
	// Trace is the sha256 of the trace written; Exports the endpoints that
	// accepted exactly that trace. Both are optional: a manifest written
	// before them still loads (its inputs are simply not known as
	// exported), and an older convert ignores them.
	Trace   string           `json:"trace,omitempty"`
	Exports []manifestExport `json:"exports,omitempty"`
	// RevealNames records that the outputs were written with --reveal
	// names (Settings holds it only in its fingerprint): convert leakcheck
	// checks them so, as a model name no catalog knows is in clear then.
	RevealNames bool `json:"reveal_names,omitempty"`
}

// manifestExport records one trace an endpoint accepted.
type manifestExport struct {
	Endpoint string `json:"endpoint"` // EndpointID: scheme and host, the path only as a digest
	Trace    string `json:"trace"`    // sha256:... of the trace document sent
}

type manifestFile struct {
	Path    string `json:"path"`
	Size    int64  `json:"size"`
	MtimeNS int64  `json:"mtime_ns"`
	SHA256  string `json:"sha256"`
}

// loadManifest reads the manifest of dir; a missing or unreadable one is
// empty (everything is converted).
func loadManifest(dir string, h receipt.Hasher) *manifest {
	m := &manifest{path: filepath.Join(dir, ManifestName), hash: h, Version: Version, Inputs: map[string]manifestEntry{}}
	b, err := os.ReadFile(m.path)
	if err != nil {
		return m
	}
	var old manifest
	if json.Unmarshal(b, &old) == nil && old.Version == Version && old.Inputs != nil {
		for k, e := range old.Inputs {
			// Entries of the other mode (plain, or keyed) are dropped:
			// their settings differ, so they would be converted again
			// anyway, and a keyed run keeps no plain digest of a path.
			if receipt.IsDigest(k) && !strings.HasPrefix(k, h.Mode()+":") {
				continue
			}
			// A manifest written before paths were digested: digest them
			// now, so it is read as it was and rewritten without them.
			if !receipt.IsDigest(k) {
				k = m.pathID(k)
				for i := range e.Files {
					e.Files[i].Path = m.pathID(e.Files[i].Path)
				}
			}
			m.Inputs[k] = e
		}
	}
	return m
}

// ManifestLoad is a manifest being read ahead of a run.
type ManifestLoad struct {
	dir  string
	done chan struct{}
	m    *manifest
}

// PrefetchManifest starts reading dir's manifest under h while the caller
// finds the inputs: on an unchanged rerun of a history the walk and the
// manifest's decoding take about as long each, and need nothing of each
// other. RunOptions.Manifest hands it to Run, which must hash with h. A
// caller that may change dir's manifest before Run (migrating a layout)
// does not prefetch it.
func PrefetchManifest(dir string, h receipt.Hasher) *ManifestLoad {
	l := &ManifestLoad{dir: dir, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.m = loadManifest(dir, h)
	}()
	return l
}

// take is the prefetched manifest of dir; nil when none was prefetched
// for dir.
func (l *ManifestLoad) take(dir string) *manifest {
	if l == nil || l.dir != dir {
		return nil
	}
	<-l.done
	return l.m
}

// settings fingerprints everything that changes the outputs of an input.
func settings(opt RunOptions) string {
	h := sha256.New()
	for _, s := range []string{Version, opt.Converter, strconv.FormatBool(opt.Strict), strconv.Itoa(opt.MaxLine),
		opt.Hash.Mode(), opt.Hash.KeyID(), strconv.FormatBool(opt.Reveal), TraceSuffix(opt.OTelFormat), opt.ServiceName} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	// Only when set, so the default's fingerprint is what it was.
	if opt.LegacyGenAINames {
		h.Write([]byte("legacy-genai-names\x00"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// unchanged reports whether in was converted before with the same settings,
// its outputs are still there, and every file has the size and sha256 it
// had (the mtime spares re-hashing when it is equal).
func (m *manifest) unchanged(ctx context.Context, in Input, set string, outs []string) bool {
	m.mu.Lock()
	e, ok := m.Inputs[m.pathID(in.Rel)]
	m.mu.Unlock()
	paths := inputPaths(in)
	if !ok || e.Settings != set || len(e.Files) != len(paths) || !equalStrings(e.Outputs, outs) {
		return false
	}
	var touched []manifestFile // the files whose mtime moved while their bytes did not
	for i, p := range paths {
		st, err := statInput(p)
		if err != nil || st.Size() != e.Files[i].Size || e.Files[i].Path != m.pathID(p) {
			return false
		}
		if mt := st.ModTime().UnixNano(); mt != e.Files[i].MtimeNS {
			if fileSHA256(ctx, p) != e.Files[i].SHA256 {
				return false
			}
			if touched == nil {
				touched = slices.Clone(e.Files)
			}
			touched[i].MtimeNS = mt
		}
	}
	for _, o := range outs {
		if !m.present(filepath.Join(filepath.Dir(m.path), filepath.FromSlash(o))) {
			return false
		}
	}
	if touched != nil {
		// The same bytes under a new mtime: remember the mtime, so that
		// the next run does not read the file again to know it.
		e.Files = touched
		m.mu.Lock()
		m.Inputs[m.pathID(in.Rel)] = e
		m.refreshed = true
		m.mu.Unlock()
	}
	return true
}

// present reports whether the output file p is in its folder, from one
// listing of the folder per run rather than a stat per output: an
// unchanged rerun of a history asks of thousands of outputs in a few
// folders. Existence is what the rerun needs: the input's size and mtime
// (or its bytes) are the manifest's, so the outputs on disk were made from
// it; one deleted is made again. The listing is the folder's at the first
// ask; outputs this run writes later are not in it, which at worst
// converts an input again.
func (m *manifest) present(p string) bool {
	dir, name := filepath.Split(p)
	m.mu.Lock()
	defer m.mu.Unlock()
	names, ok := m.listed[dir]
	if !ok {
		names = map[string]bool{}
		if f, err := os.Open(dir); err == nil {
			entries, _ := f.ReadDir(-1)
			f.Close()
			for _, e := range entries {
				if e.Type().IsRegular() {
					names[e.Name()] = true
				}
			}
		}
		if m.listed == nil {
			m.listed = map[string]map[string]bool{}
		}
		m.listed[dir] = names
	}
	return names[name]
}

// exported reports whether the trace on disk for rel is the one the
// endpoint already accepted.
func (m *manifest) exported(rel, endpoint string) bool {
	m.mu.Lock()
	e, ok := m.Inputs[m.pathID(rel)]
	m.mu.Unlock()
	if !ok || e.Trace == "" || len(e.Outputs) < 2 {
		return false
	}
	endpoint = EndpointID(m.hash, endpoint)
	for _, x := range e.Exports {
		if x.Endpoint == endpoint && x.Trace == e.Trace {
			return "sha256:"+fileSHA256(context.Background(), filepath.Join(filepath.Dir(m.path), filepath.FromSlash(e.Outputs[1]))) == e.Trace
		}
	}
	return false
}

// took reports whether the endpoint accepted exactly the trace digest for
// rel before.
func (m *manifest) took(rel, endpoint, trace string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	endpoint = EndpointID(m.hash, endpoint)
	for _, x := range m.Inputs[m.pathID(rel)].Exports {
		if x.Endpoint == endpoint && x.Trace == trace {
			return true
		}
	}
	return false
}

// madeFrom is the main file the outputs of rel were last made from ("" when
// the manifest does not know).
func (m *manifest) madeFrom(rel string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.Inputs[m.pathID(rel)]; ok && len(e.Files) > 0 {
		return e.Files[0].Path
	}
	return ""
}

// record remembers a converted input: its files' digests come from the
// conversion (sidecars are hashed here); trace is the digest of the trace
// written and exports the endpoints that took it now; reveal, that the
// outputs were written with --reveal names. Earlier exports of the same
// trace bytes are kept.
func (m *manifest) record(in Input, set string, reveal bool, outs []string, files []FileInfo, trace string, exports []manifestExport) {
	known := map[string]FileInfo{}
	for _, f := range files {
		known[f.Path] = f
	}
	e := manifestEntry{Settings: set, Outputs: outs, Trace: trace, RevealNames: reveal}
	m.mu.Lock()
	if old, ok := m.Inputs[m.pathID(in.Rel)]; ok && old.Trace == trace {
		for _, x := range old.Exports {
			if x.Trace == trace && !hasExport(exports, x.Endpoint) {
				exports = append(exports, x)
			}
		}
	}
	m.mu.Unlock()
	sort.Slice(exports, func(a, b int) bool { return exports[a].Endpoint < exports[b].Endpoint })
	e.Exports = exports
	for _, p := range inputPaths(in) {
		st, err := statInput(p)
		if err != nil {
			return
		}
		// Pass one's digest when it read the file; only a file it did not
		// read is read again here.
		var sum string
		if f, ok := known[p]; ok {
			sum = hex.EncodeToString(f.SHA256)
		} else {
			sum = fileSHA256(context.Background(), p)
		}
		e.Files = append(e.Files, manifestFile{Path: m.pathID(p), Size: st.Size(), MtimeNS: st.ModTime().UnixNano(), SHA256: sum})
	}
	m.mu.Lock()
	m.Inputs[m.pathID(in.Rel)] = e
	m.mu.Unlock()
}

// pathID names a path in the manifest: its digest under the run's hasher
// (an HMAC under the key in keyed mode), so the manifest compares paths
// without holding one, and a keyed run's manifest confirms no guessed path.
func (m *manifest) pathID(p string) string { return m.hash.Text(p) }

// EndpointID names an OTLP endpoint in the manifest: its scheme and host
// (and port) as given, and its path, which may hold a token, only as a
// digest under h (keyed in keyed mode). key is the exporter's Key: scheme,
// host and path, no credentials, no query.
func EndpointID(h receipt.Hasher, key string) string {
	scheme, rest, ok := strings.Cut(key, "://")
	if !ok {
		return h.Text(key)
	}
	host, p, _ := strings.Cut(rest, "/")
	if p == "" {
		return scheme + "://" + host
	}
	return scheme + "://" + host + "/" + h.Text("/"+p)
}

// save writes the manifest through a temporary file and a rename.
func (m *manifest) save() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	keys := make([]string, 0, len(m.Inputs))
	for k := range m.Inputs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b bytes.Buffer
	b.WriteString("{\"version\":")
	v, _ := json.Marshal(m.Version)
	b.Write(v)
	b.WriteString(",\"inputs\":{")
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		eb, _ := json.Marshal(m.Inputs[k])
		b.Write(kb)
		b.WriteByte(':')
		b.Write(eb)
	}
	b.WriteString("}}\n")
	t, err := writeTemp(m.path, b.Bytes())
	if err != nil {
		return err
	}
	if err := os.Rename(t, m.path); err != nil {
		os.Remove(t)
		return err
	}
	return nil
}

func hasExport(xs []manifestExport, endpoint string) bool {
	for _, x := range xs {
		if x.Endpoint == endpoint {
			return true
		}
	}
	return false
}

func inputPaths(in Input) []string {
	out := []string{in.Path}
	if in.Meta != "" {
		out = append(out, in.Meta)
	}
	for _, c := range in.Companions {
		out = append(out, c.Path)
		if c.Meta != "" {
			out = append(out, c.Meta)
		}
	}
	return out
}

// fileSHA256 is the hex sha256 of a regular file ("" for anything else, or
// when ctx ends first: a signal is not kept waiting by a large file).
func fileSHA256(ctx context.Context, p string) string {
	fh, err := openFile(nil, p)
	if err != nil {
		return ""
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, stopping(ctx, fh)); err != nil && !errors.Is(err, io.EOF) {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
