package report

import "testing"

// TestHumanDuration: the sessions table's durations read as durations; a
// 70-minute session was printed as 4,245,185 under "duration (s)".
func TestHumanDuration(t *testing.T) {
	for ms, want := range map[int64]string{0: "0 s", 999: "0 s", 45_000: "45 s", 60_000: "1 min", 725_000: "12 min 5 s",
		4_245_185: "1 h 10 min", 3_600_000: "1 h", 183_600_000: "2 d 3 h"} {
		if got := humanDuration(ms); got != want {
			t.Errorf("humanDuration(%d) = %q, want %q", ms, got, want)
		}
	}
}
