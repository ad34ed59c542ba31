package receipt

// A Ladder turns a number into a bucket label, so receipts reveal an order of
// magnitude and two receipts stay comparable. The ladders are fixed and
// documented in docs/formats.md, "Buckets"; changing one is a receipt schema
// change (docs/design.md, "Digests and buckets").
type Ladder struct {
	Name   string
	Bounds []int64  // ascending upper bounds (exclusive)
	Labels []string // len(Bounds)+1 labels; the last is for values >= the last bound
}

// Bucket returns the label for n. Zero has its own label on every ladder,
// negative values report "invalid".
func (l Ladder) Bucket(n int64) string {
	if n < 0 {
		return "invalid"
	}
	if n == 0 {
		return "0"
	}
	for i, b := range l.Bounds {
		if n < b {
			return l.Labels[i]
		}
	}
	return l.Labels[len(l.Labels)-1]
}

// The ladders every converter uses.
var (
	CountLadder = Ladder{"count",
		[]int64{5, 25, 100, 1000, 10000},
		[]string{"under_5", "under_25", "under_100", "under_1k", "under_10k", "10k_plus"}}
	TokenLadder = Ladder{"tokens",
		[]int64{1000, 10000, 50000, 100000, 200000, 1000000},
		[]string{"under_1k", "under_10k", "under_50k", "under_100k", "under_200k", "under_1m", "1m_plus"}}
	ByteLadder = Ladder{"bytes",
		[]int64{1 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 16 << 20},
		[]string{"under_1kib", "under_16kib", "under_64kib", "under_256kib", "under_1mib", "under_16mib", "16mib_plus"}}
	LatencyLadder = Ladder{"latency_ms",
		[]int64{100, 1000, 10000, 60000, 600000},
		[]string{"under_100ms", "under_1s", "under_10s", "under_1m", "under_10m", "10m_plus"}}
)

// Ladders lists every ladder, for documentation and tests.
func Ladders() []Ladder { return []Ladder{CountLadder, TokenLadder, ByteLadder, LatencyLadder} }
