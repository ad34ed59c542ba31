package main

import (
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
)

// TestListAgentsFirst: convert list shows every agent's reader first, and
// the scenario converters after them, under a heading of their own.
func TestListAgentsFirst(t *testing.T) {
	code, out, errs := call(t, nil, "list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	split := strings.Index(out, "Scenario converters")
	if !strings.HasPrefix(out, "Agents") || split < 0 {
		t.Fatalf("no agents heading first, or no scenario heading:\n%s", out)
	}
	agents, scenarios := 0, 0
	for _, cv := range converters.All() {
		at := strings.Index(out, "\n  "+cv.Name+" ")
		switch {
		case at < 0:
			t.Errorf("%s is not listed", cv.Name)
		case cv.Native != nil && at > split:
			t.Errorf("the agent %s is listed among the scenarios", cv.Name)
		case cv.Native == nil && at < split:
			t.Errorf("the scenario %s is listed among the agents", cv.Name)
		case cv.Native != nil:
			agents++
		default:
			scenarios++
		}
	}
	if agents == 0 || scenarios == 0 {
		t.Errorf("%d agents, %d scenarios", agents, scenarios)
	}
}
