package export

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

// grpcAnswer is what the test server answers one call with.
type grpcAnswer struct {
	code     codes.Code
	retry    time.Duration // a RetryInfo detail, when > 0
	rejected int64         // partial success
}

// grpcServer is an in-process OTLP/gRPC trace service (the Collector's
// own server registration) that records each call.
type grpcServer struct {
	ptraceotlp.UnimplementedGRPCServer
	answers []grpcAnswer
	mu      sync.Mutex
	calls   []ptraceotlp.ExportRequest
	md      []metadata.MD
	encs    []string // the compression of each call, as the transport saw it
}

func (s *grpcServer) Export(ctx context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	s.mu.Lock()
	a := s.answers[min(len(s.calls), len(s.answers)-1)]
	md, _ := metadata.FromIncomingContext(ctx)
	s.calls, s.md = append(s.calls, req), append(s.md, md)
	s.mu.Unlock()
	resp := ptraceotlp.NewExportResponse()
	if a.code != codes.OK {
		st := status.New(a.code, "CANARY server message")
		if a.retry > 0 {
			st, _ = st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(a.retry)})
		}
		return resp, st.Err()
	}
	resp.PartialSuccess().SetRejectedSpans(a.rejected)
	return resp, nil
}

// HandleRPC notes the compression of each incoming call.
func (s *grpcServer) HandleRPC(_ context.Context, st stats.RPCStats) {
	if h, ok := st.(*stats.InHeader); ok {
		s.mu.Lock()
		s.encs = append(s.encs, h.Compression)
		s.mu.Unlock()
	}
}
func (s *grpcServer) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context   { return ctx }
func (s *grpcServer) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (s *grpcServer) HandleConn(context.Context, stats.ConnStats)                       {}

func newGRPCServer(t *testing.T, answers ...grpcAnswer) (*grpcServer, string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &grpcServer{answers: answers}
	gs := grpc.NewServer(grpc.StatsHandler(s))
	ptraceotlp.RegisterGRPCServer(gs, s)
	go gs.Serve(l)
	t.Cleanup(gs.Stop)
	return s, l.Addr().String()
}

func TestExportGRPC(t *testing.T) {
	ok := grpcAnswer{code: codes.OK}
	tests := []struct {
		name        string
		answers     []grpcAnswer
		compression string
		resource    []Attr
		retries     int
		wantErr     string // "" means success
		wantCalls   int
	}{
		{name: "accepted", answers: []grpcAnswer{ok}, wantCalls: 1},
		{name: "gzip, resource merged", answers: []grpcAnswer{ok}, compression: CompressionGzip, resource: []Attr{{"team", "red"}, {"service.name", "svc"}}, wantCalls: 1},
		{name: "Unavailable then OK", answers: []grpcAnswer{{code: codes.Unavailable}, ok}, retries: 3, wantCalls: 2},
		{name: "Unavailable until the retries run out", answers: []grpcAnswer{{code: codes.Unavailable}}, retries: 2, wantErr: "gRPC Unavailable (gave up after 3 attempts)", wantCalls: 3},
		{name: "ResourceExhausted with RetryInfo is retried", answers: []grpcAnswer{{code: codes.ResourceExhausted, retry: 20 * time.Millisecond}, ok}, retries: 3, wantCalls: 2},
		{name: "ResourceExhausted without RetryInfo is not", answers: []grpcAnswer{{code: codes.ResourceExhausted}, ok}, retries: 3, wantErr: "gRPC ResourceExhausted", wantCalls: 1},
		{name: "InvalidArgument is not retried", answers: []grpcAnswer{{code: codes.InvalidArgument}, ok}, retries: 3, wantErr: "gRPC InvalidArgument", wantCalls: 1},
		{name: "Unauthenticated is not retried", answers: []grpcAnswer{{code: codes.Unauthenticated}, ok}, retries: 3, wantErr: "gRPC Unauthenticated", wantCalls: 1},
		{name: "rejected spans", answers: []grpcAnswer{{rejected: 2}}, retries: 3, wantErr: "gRPC OK, but the endpoint rejected 2 span(s) (partial success)", wantCalls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, addr := newGRPCServer(t, tt.answers...)
			e := newExporter(t, Config{URL: "http://" + addr, Protocol: ProtocolGRPC, Compression: tt.compression, Resource: tt.resource,
				Retries: tt.retries, Headers: map[string]string{"Authorization": "Bearer " + canary}})
			defer e.Close()
			err := e.Export(context.Background(), traceDoc)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tt.wantErr != "" && (err == nil || err.Error() != "http://"+addr+": "+tt.wantErr):
				t.Fatalf("error %v, want %q", err, "http://"+addr+": "+tt.wantErr)
			case err != nil && strings.Contains(err.Error(), canary):
				t.Fatalf("error carries the server's message or a header: %q", err)
			}
			srv.mu.Lock()
			defer srv.mu.Unlock()
			if len(srv.calls) != tt.wantCalls {
				t.Fatalf("%d calls, want %d", len(srv.calls), tt.wantCalls)
			}
			for i, req := range srv.calls {
				checkTrace(t, req.Traces(), tt.resource)
				if got := srv.md[i].Get("authorization"); len(got) != 1 || got[0] != "Bearer "+canary {
					t.Errorf("call %d: authorization metadata %q", i, got)
				}
				want := ""
				if tt.compression == CompressionGzip {
					want = "gzip"
				}
				if i < len(srv.encs) && srv.encs[i] != want {
					t.Errorf("call %d: compression %q, want %q", i, srv.encs[i], want)
				}
			}
			if len(srv.encs) != len(srv.calls) {
				t.Errorf("%d calls seen by the transport, %d by the service", len(srv.encs), len(srv.calls))
			}
		})
	}
}

// TestExportGRPCTimeout: a server that does not answer costs the export's
// timeout, once, and the endpoint is then taken as down.
func TestExportGRPCTimeout(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	gs := grpc.NewServer()
	ptraceotlp.RegisterGRPCServer(gs, &blockingServer{block: block})
	go gs.Serve(l)
	t.Cleanup(gs.Stop)
	e := newExporter(t, Config{URL: l.Addr().String(), Insecure: true, Protocol: ProtocolGRPC, Timeout: 200 * time.Millisecond, Retries: 3})
	defer e.Close()
	start := time.Now()
	err = e.Export(context.Background(), traceDoc)
	if err == nil || err.Error() != "http://"+l.Addr().String()+": no response within the 200ms export timeout" {
		t.Fatalf("error %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("took %s", d)
	}
	if err := e.Export(context.Background(), traceDoc); !errors.Is(err, ErrDown) {
		t.Fatalf("the next export: %v, want ErrDown", err)
	}
}

type blockingServer struct {
	ptraceotlp.UnimplementedGRPCServer
	block chan struct{}
}

func (b *blockingServer) Export(ctx context.Context, _ ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	select {
	case <-b.block:
	case <-ctx.Done():
	}
	return ptraceotlp.NewExportResponse(), ctx.Err()
}
