package view

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/jsonscan"
	"github.com/tidwall/gjson"
)

// getDocs are documents shaped like the records readers query: nested
// objects, arrays of blocks, escaped keys and values, duplicate keys,
// surrogates (paired, lone, reversed), numbers of every form, and
// whitespace where JSON allows it.
var getDocs = []string{
	`{"type":"assistant","message":{"id":"msg_1","usage":{"input_tokens":12,"output_tokens":3.5e2,"cache_read_input_tokens":-0}}}`,
	`{"message":{"content":[{"type":"text","text":"a\nb \"q\" \\ \/ \b\f\r\t"},{"type":"tool_use","id":"t","input":{"cmd":"ls"}}]}}`,
	`{ "a" : { "b" : [ 1 , { "c" : "x" } , [ true , false , null ] ] } , "d" : "" }`,
	`{"k\u0065y":"v","key":"w","x":{"k\"q":1}}`,
	`{"dup":1,"dup":2,"n":{"dup":"a","dup":"b"}}`,
	`{"s":"\ud83d\ude00 \ud800 \udc00x \udc00\ud800 \ud83d\u0041 \u00e9\u20AC\uffff"}`,
	`{"payload":{"type":"session_meta","instructions":"` + strings.Repeat(`long \"text\" `, 50) + `","id":"abc"}}`,
	`[{"a":1},{"a":2},"s",3]`,
	`{"0":"zero","1":{"0":"nested"},"arr":[[0,1],[2,3]]}`,
	`{"a-b":{"c_d":1},"":2,"e":{}}`,
	`"just a string"`,
	`123`,
	`{"big":12345678901234567890,"neg":-1.5E-3,"t":true,"f":false,"z":null}`,
}

var getPaths = []string{
	"type", "message", "message.id", "message.usage", "message.usage.input_tokens", "message.usage.output_tokens",
	"message.usage.cache_read_input_tokens", "message.usage.missing", "message.content", "message.content.0",
	"message.content.0.text", "message.content.1.input.cmd", "message.content.2", "message.content.1.id",
	"a", "a.b", "a.b.0", "a.b.1.c", "a.b.2", "a.b.2.1", "a.b.3", "d", "key", "x.k\"q", "dup", "n.dup",
	"s", "payload.type", "payload.id", "payload.instructions", "payload.missing", "0", "0.a", "1.a", "2", "3",
	"1.0", "arr.1.0", "arr.0.1", "a-b.c_d", "e", "e.x", "big", "neg", "t", "f", "z", "z.x", "t.x",
	"message.content.01", "message.content.-1", "a.b.#", "message.content.#.type", "*", "mess*", "a.b|@reverse",
	"a..b", ".a", "a.", "", "message.content.99999999999",
}

// sameResult compares what readers read of a gjson.Result (Index is not
// read by any of them).
func sameResult(a, b gjson.Result) bool {
	return a.Type == b.Type && a.Raw == b.Raw && a.Str == b.Str && (a.Num == b.Num || a.Num != a.Num && b.Num != b.Num)
}

func TestGetMatchesGjson(t *testing.T) {
	for _, doc := range getDocs {
		if !jsonscan.Valid([]byte(doc)) {
			t.Fatalf("not valid: %s", doc)
		}
		v := gjson.Parse(doc)
		for _, path := range getPaths {
			if got, want := get(v, path), v.Get(path); !sameResult(got, want) {
				t.Errorf("get(%.60s, %q) = %#v, gjson %#v", doc, path, got, want)
			}
		}
	}
}

func TestUnescapeMatchesGjson(t *testing.T) {
	for _, s := range []string{
		``, `plain`, `\n`, `a\\`, `\\\"`, `\u0041`, `\u00e9x`, `\ud83d\ude00`, `\ud83d`, `\ud83dx`, `\ud83d\u0041`,
		`\udc00`, `\ud83d\ud83d\ude00`, `\uD83D\uDE00`, `x\/y\b\f\r\t`, strings.Repeat(`line \"x\"\n`, 100),
	} {
		quoted := `"` + s + `"`
		if !jsonscan.Valid([]byte(quoted)) {
			t.Fatalf("not valid: %s", quoted)
		}
		if got, want := unescape(s), gjson.Parse(quoted).Str; got != want {
			t.Errorf("unescape(%q) = %q, gjson %q", s, got, want)
		}
	}
}

// FuzzGet holds get to gjson on any valid document and path, and unescape
// to gjson on any valid string (the fuzzed bytes, as Go's encoder writes
// them, and as they are when they are a valid JSON string body already).
func FuzzGet(f *testing.F) {
	for _, doc := range getDocs {
		for _, p := range getPaths[:12] {
			f.Add(doc, p)
		}
	}
	f.Fuzz(func(t *testing.T, doc, path string) {
		if jsonscan.Valid([]byte(doc)) {
			v := gjson.Parse(doc)
			if got, want := get(v, path), v.Get(path); !sameResult(got, want) {
				t.Fatalf("get(%q, %q) = %#v, gjson %#v", doc, path, got, want)
			}
		}
		enc, _ := json.Marshal(doc)
		for _, quoted := range []string{string(enc), `"` + doc + `"`, strconv.Quote(doc)} {
			if jsonscan.Valid([]byte(quoted)) {
				if got, want := unescape(quoted[1:len(quoted)-1]), gjson.Parse(quoted).Str; got != want {
					t.Fatalf("unescape(%q) = %q, gjson %q", quoted, got, want)
				}
			}
		}
	})
}
