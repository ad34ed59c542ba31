package export

import (
	"cmp"
	"maps"
	"reflect"
	"slices"
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
	none := map[string]string{}
	tests := []struct {
		name     string
		env      map[string]string
		want     Env
		protocol string // for URL
		url      string
		warnings []string
	}{
		{name: "nothing set", want: Env{Headers: none}},
		{name: "base endpoint gets the path", env: map[string]string{EnvEndpoint: "http://c:4318"},
			want: Env{Endpoint: "http://c:4318", Headers: none}, url: "http://c:4318/v1/traces"},
		{name: "grpc: base endpoint as is", env: map[string]string{EnvEndpoint: "http://c:4317", EnvProtocol: "grpc"},
			want: Env{Endpoint: "http://c:4317", Headers: none, Protocol: "grpc"}, protocol: "grpc", url: "http://c:4317"},
		{name: "traces endpoint is used as is", env: map[string]string{EnvTracesEndpoint: "http://c:4318/custom", EnvEndpoint: "http://other:4318"},
			want: Env{TracesEndpoint: "http://c:4318/custom", Endpoint: "http://other:4318", Headers: none}, url: "http://c:4318/custom"},
		{name: "OTEL_TRACES_EXPORTER=none ignores the endpoints", env: map[string]string{EnvTracesExporter: "none", EnvTracesEndpoint: "http://c:4318/custom", EnvEndpoint: "http://other:4318"},
			want: Env{Headers: none}},
		{name: "headers decoded, traces ones win", env: map[string]string{
			EnvHeaders:       "api-key=a%20b, x-team = red ",
			EnvTracesHeaders: "X-Team=blue",
		}, want: Env{Headers: map[string]string{"Api-Key": "a b", "X-Team": "blue"}}},
		{name: "per-signal variables win", env: map[string]string{EnvTimeout: "2500", EnvTracesTimeout: "750",
			EnvProtocol: "grpc", EnvTracesProtocol: "http/json", EnvCompression: "none", EnvTracesCompression: "GZIP", EnvInsecure: "false", EnvTracesInsecure: "true"},
			want: Env{Headers: none, Timeout: 750 * time.Millisecond, Protocol: "http/json", Compression: "gzip", Insecure: true}},
		{name: "resource attributes, service name last", env: map[string]string{EnvResourceAttributes: "service.name=a, team=red%20one,deployment.environment=dev", EnvServiceName: "svc"},
			want: Env{Headers: none, Resource: []Attr{{"service.name", "a"}, {"team", "red one"}, {"deployment.environment", "dev"}, {"service.name", "svc"}}}},
		{name: "bad values warn and fall back", env: map[string]string{
			EnvHeaders: "ok=1," + canary, EnvTracesHeaders: "k=%zz" + canary, EnvTimeout: "10s" + canary, EnvTracesTimeout: "0",
			EnvProtocol: "http/" + canary, EnvCompression: canary, EnvInsecure: canary, EnvResourceAttributes: "a=b," + canary},
			want: Env{Headers: map[string]string{"Ok": "1"}},
			warnings: []string{
				EnvHeaders + ": entry 2 has no '=' (want key=value,key2=value2); the valid entries are used",
				EnvTracesHeaders + ": entry 1: bad percent-encoding; the valid entries are used",
				EnvTimeout + ": not a number of milliseconds from 1 to 3600000; ignored",
				EnvTracesTimeout + ": not a number of milliseconds from 1 to 3600000; ignored",
				EnvProtocol + ": not http/protobuf, http/json or grpc; ignored",
				EnvCompression + ": not gzip or none; ignored",
				EnvInsecure + ": not true or false; ignored",
				EnvResourceAttributes + ": entry 2 has no '=' (want key=value,key2=value2); the whole variable is ignored, as the specification says",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FromEnv(func(k string) string { return tt.env[k] })
			if !slices.Equal(got.Warnings, tt.warnings) {
				t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got.Warnings, "\n"), strings.Join(tt.warnings, "\n"))
			}
			if strings.Contains(strings.Join(got.Warnings, " "), canary) {
				t.Errorf("a warning carries a value: %q", got.Warnings)
			}
			got.Warnings = nil
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if u := got.URL(cmp.Or(tt.protocol, DefaultProtocol)); u != tt.url {
				t.Errorf("URL = %q, want %q", u, tt.url)
			}
		})
	}
}

func TestParseResource(t *testing.T) {
	tests := []struct {
		in      string
		want    []Attr
		wantErr string
	}{
		{"", nil, ""},
		{"a=b", []Attr{{"a", "b"}}, ""},
		{" k = v%2Cw , k2=%F0%9F%98%80,,", []Attr{{"k", "v,w"}, {"k2", "😀"}}, ""},
		{"a=1,b=2,a=3", []Attr{{"b", "2"}, {"a", "3"}}, ""},
		{"a=", []Attr{{"a", ""}}, ""},
		{"=v" + canary, nil, "entry 1 has an empty key"},
		{"a=%zz" + canary, nil, "entry 1: bad percent-encoding"},
		{"a=%ff", nil, "entry 1: bad percent-encoding"},
	}
	for _, tt := range tests {
		got, err := ParseResource(tt.in)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("ParseResource(%q): error %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParseResource(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestResolve(t *testing.T) {
	tests := []struct {
		name     string
		set      Settings
		env      map[string]string
		want     Config
		warnings int
		wantErr  string
	}{
		{name: "nothing", want: Config{Protocol: DefaultProtocol}},
		{name: "flag endpoint, default protocol", set: Settings{Endpoint: "http://c:4318"},
			want: Config{URL: "http://c:4318/v1/traces", Protocol: "http/protobuf"}},
		{name: "flag endpoint with grpc has no path appended", set: Settings{Endpoint: "http://c:4317", Protocol: "grpc", Compression: "gzip"},
			want: Config{URL: "http://c:4317", Protocol: "grpc", Compression: "gzip"}},
		{name: "flags win over the environment", set: Settings{Endpoint: "http://f:1", Protocol: "http/json", Compression: "none", Timeout: time.Second, Headers: []string{"k=flag"}},
			env:  map[string]string{EnvEndpoint: "http://e:2", EnvProtocol: "grpc", EnvCompression: "gzip", EnvTimeout: "5000", EnvHeaders: "k=env,j=env"},
			want: Config{URL: "http://f:1/v1/traces", Protocol: "http/json", Compression: "none", Timeout: time.Second, Headers: map[string]string{"K": "flag", "J": "env"}}},
		{name: "environment protocol picks the endpoint's form", env: map[string]string{EnvEndpoint: "c:4317", EnvTracesProtocol: "grpc", EnvInsecure: "true"},
			want: Config{URL: "c:4317", Protocol: "grpc", Insecure: true}},
		{name: "--service-name keeps the trace's service.name", set: Settings{Endpoint: "http://c", KeepServiceName: true},
			env:  map[string]string{EnvServiceName: "svc", EnvResourceAttributes: "service.name=x,team=a"},
			want: Config{URL: "http://c/v1/traces", Protocol: DefaultProtocol, Resource: []Attr{{"team", "a"}}}},
		{name: "a bad endpoint variable: a warning, no export", env: map[string]string{EnvEndpoint: "localhost:4318/" + canary},
			want: Config{Protocol: DefaultProtocol}, warnings: 1},
		{name: "bad protocol flag", set: Settings{Endpoint: "http://c", Protocol: "http"}, wantErr: "--otlp-protocol must be http/protobuf, http/json or grpc"},
		{name: "bad compression flag", set: Settings{Endpoint: "http://c", Compression: "zstd"}, wantErr: "--otlp-compression must be gzip or none"},
		{name: "bad endpoint flag", set: Settings{Endpoint: "localhost:4318"}, wantErr: "absolute http:// or https:// URL"},
		{name: "bad grpc endpoint flag", set: Settings{Endpoint: "c:4317/" + canary, Protocol: "grpc"}, wantErr: "http://host:port, https://host:port or host:port"},
		{name: "bad header flag", set: Settings{Endpoint: "http://c", Headers: []string{canary}}, wantErr: "--otlp-header (occurrence 1): want KEY=VALUE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warnings, err := Resolve(tt.set, FromEnv(func(k string) string { return tt.env[k] }))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || strings.Contains(err.Error(), canary) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(warnings) != tt.warnings || strings.Contains(strings.Join(warnings, " "), canary) {
				t.Errorf("warnings %q, want %d without the value", warnings, tt.warnings)
			}
			if tt.want.Headers == nil {
				tt.want.Headers = map[string]string{}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
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
