package report

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/bench/selection/ledgerarm"
	"github.com/darwin-memo/darwin-memo-action/bench/selection/sim"
	"github.com/darwin-memo/darwin-memo-action/lessons"
)

func TestScratch(t *testing.T) {
	if os.Getenv("SCRATCH") == "" {
		t.Skip()
	}
	cfg := sim.DefaultConfig()
	variants := map[string]ledgerarm.Options{}
	def := lessons.DefaultConfig()
	variants["default"] = ledgerarm.Options{Name: Ours}
	variants["scale1"] = ledgerarm.Options{Name: Ours, Scale: 1}
	s0 := def
	s0.SupportingShare = 0
	variants["share0"] = ledgerarm.Options{Name: Ours, Config: &s0}
	s1 := def
	s1.SupportingShare = 0.1
	variants["share0.1"] = ledgerarm.Options{Name: Ours, Config: &s1}
	variants["share0_scale1"] = ledgerarm.Options{Name: Ours, Config: &s0, Scale: 1}
	variants["upkeep0.03"] = ledgerarm.Options{Name: Ours, Upkeep: 0.03}
	s2 := def
	s2.SupportingShare = 0.1
	variants["share0.1_scale1"] = ledgerarm.Options{Name: Ours, Config: &s2, Scale: 1}
	for _, name := range []string{"default", "scale1", "share0", "share0_scale1", "share0.1_scale1"} {
		sw := NewSweep(cfg, 20, []float64{0, 0.1})
		sw.Reference = ledgerarm.Spec(variants[name])
		sw.KeepSeries = false
		r, err := sw.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("=== variant", name)
		summary(os.Stdout, r, 20)
	}
}
