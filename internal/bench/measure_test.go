package bench

import (
	"os/exec"
	"strconv"
	"testing"
)

// TestCommandPeakRSS: the peak RSS is the child's own, not the vfork
// floor of the parent's, and grows with what the child holds.
func TestCommandPeakRSS(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	hold := make([]byte, 200<<20) // a big parent: its RSS must not show in the child's
	for i := range hold {
		hold[i] = 1
	}
	cases := []struct {
		mb       int
		min, max float64
	}{{0, 1, 60}, {150, 140, 260}}
	for _, c := range cases {
		script := "import time\nb = bytearray(" + strconv.Itoa(c.mb) + " << 20)\nfor i in range(0, len(b), 4096): b[i] = 1\ntime.sleep(0.3)"
		r, err := Command("python", 0, nil, false, "python3", "-c", script)
		if err != nil {
			t.Fatal(err)
		}
		if r.PeakRSSMB < c.min || r.PeakRSSMB > c.max {
			t.Errorf("holding %d MB: peak RSS %.0f MB, want %.0f-%.0f", c.mb, r.PeakRSSMB, c.min, c.max)
		}
	}
	_ = hold[len(hold)-1]
}
