package export

import (
	"maps"
	"strings"
	"testing"
	"time"
)

func TestTracesURL(t *testing.T) {
	tests := []struct{ base, want string }{
		{"http://localhost:4318", "http://localhost:4318/v1/traces"},
		{"http://localhost:4318/", "http://localhost:4318/v1/traces"},
		{"https://otel.example.com/prefix", "https://otel.example.com/prefix/v1/traces"},
		{"https://otel.example.com/prefix/", "https://otel.example.com/prefix/v1/traces"},
		{"http://localhost:4318/v1/traces", "http://localhost:4318/v1/traces"},
	}
	for _, tt := range tests {
		if got := TracesURL(tt.base); got != tt.want {
			t.Errorf("TracesURL(%q) = %q, want %q", tt.base, got, tt.want)
		}
	}
}

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    Env
		wantErr string
	}{
		{"nothing set", nil, Env{Headers: map[string]string{}}, ""},
		{"base endpoint gets the path", map[string]string{EnvEndpoint: "http://c:4318"},
			Env{URL: "http://c:4318/v1/traces", Headers: map[string]string{}}, ""},
		{"traces endpoint is used as is", map[string]string{EnvTracesEndpoint: "http://c:4318/custom", EnvEndpoint: "http://other:4318"},
			Env{URL: "http://c:4318/custom", Headers: map[string]string{}}, ""},
		{"OTEL_TRACES_EXPORTER=none ignores the endpoints", map[string]string{EnvTracesExporter: "none", EnvTracesEndpoint: "http://c:4318/custom", EnvEndpoint: "http://other:4318"},
			Env{Headers: map[string]string{}}, ""},
		{"OTEL_TRACES_EXPORTER=otlp keeps them", map[string]string{EnvTracesExporter: "otlp", EnvEndpoint: "http://c:4318"},
			Env{URL: "http://c:4318/v1/traces", Headers: map[string]string{}}, ""},
		{"headers decoded, traces ones win", map[string]string{
			EnvHeaders:       "api-key=a%20b, x-team = red ",
			EnvTracesHeaders: "X-Team=blue",
		}, Env{Headers: map[string]string{"Api-Key": "a b", "X-Team": "blue"}}, ""},
		{"timeouts in milliseconds, traces one wins", map[string]string{EnvTimeout: "2500", EnvTracesTimeout: "750"},
			Env{Headers: map[string]string{}, Timeout: 750 * time.Millisecond}, ""},
		{"bad header entry", map[string]string{EnvHeaders: "ok=1," + canary}, Env{}, EnvHeaders + ": entry 2 has no '=' (want key=value,key2=value2)"},
		{"bad traces header entry", map[string]string{EnvTracesHeaders: "k=%zz" + canary}, Env{}, EnvTracesHeaders + ": entry 1: bad percent-encoding"},
		{"bad timeout", map[string]string{EnvTimeout: "10s" + canary}, Env{}, EnvTimeout + ": want a positive number of milliseconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FromEnv(func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.URL != tt.want.URL || got.Timeout != tt.want.Timeout || !maps.Equal(got.Headers, tt.want.Headers) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseHeaders(t *testing.T) {
	tests := []struct {
		in      string
		want    map[string]string
		wantErr string
	}{
		{"", map[string]string{}, ""},
		{"a=b,c=d", map[string]string{"A": "b", "C": "d"}, ""},
		{" authorization = Basic%20dXNlcg== ", map[string]string{"Authorization": "Basic dXNlcg=="}, ""},
		{"k=v%2Cw,,", map[string]string{"K": "v,w"}, ""},
		{"k=", map[string]string{"K": ""}, ""},
		{canary, nil, "entry 1 has no '=' (want key=value,key2=value2)"},
		{"=" + canary, nil, "entry 1: empty header name"},
		{"bad key=" + canary, nil, "entry 1: the header name is not a valid HTTP token"},
		{"k=" + canary + "%0D%0AX-Injected: 1", nil, `entry 1: the value of header "k" has control characters`},
		{"k=%G1" + canary, nil, "entry 1: bad percent-encoding"},
	}
	for _, tt := range tests {
		got, err := ParseHeaders(tt.in)
		switch {
		case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
			t.Errorf("ParseHeaders(%q): error %v, want %q", tt.in, err, tt.wantErr)
		case tt.wantErr == "" && err != nil:
			t.Errorf("ParseHeaders(%q): %v", tt.in, err)
		case tt.wantErr == "" && !maps.Equal(got, tt.want):
			t.Errorf("ParseHeaders(%q) = %v, want %v", tt.in, got, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), canary) {
			t.Errorf("ParseHeaders(%q): error carries the value: %v", tt.in, err)
		}
	}
}

func TestSplitHeader(t *testing.T) {
	tests := []struct {
		in, k, v, wantErr string
	}{
		{"Authorization=Bearer abc=", "Authorization", "Bearer abc=", ""},
		{"x-scope-orgid = team1", "X-Scope-Orgid", "team1", ""},
		{"k=a%20b", "K", "a%20b", ""}, // not percent-decoded on the command line
		{canary, "", "", "want KEY=VALUE"},
		{"Authorization: Bearer " + canary + "=", "", "", "the header name is not a valid HTTP token"},
	}
	for _, tt := range tests {
		k, v, err := SplitHeader(tt.in)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("SplitHeader(%q): error %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || k != tt.k || v != tt.v {
			t.Errorf("SplitHeader(%q) = %q, %q, %v; want %q, %q", tt.in, k, v, err, tt.k, tt.v)
		}
	}
}
