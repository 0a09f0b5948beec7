package action

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
)

// A store darwin-memo wrote has no ledger.config: the action settles it
// with darwin-memo's supporting_share 0.25, and only a store the action
// creates starts with the recommended 0 (issue 15 §1).
func TestStoreOptionsConfigOnlyForNewStores(t *testing.T) {
	data, err := os.ReadFile("testdata/lessons.json")
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Config: Config{StorePath: ".darwin-memo/lessons.json"}}
	loaded, err := r.parseStore("main", data, r.storeOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got := loaded.Config().SupportingShare; got != 0.25 {
		t.Errorf("loaded store supporting_share %v, want darwin-memo's 0.25", got)
	}
	created, err := r.parseStore("main", nil, r.storeOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got := created.Config().SupportingShare; got != 0 {
		t.Errorf("new store supporting_share %v, want 0", got)
	}
}

// The scale input applies to each settlement only: a store without a
// ledger.config (every store darwin-memo wrote) still has none after the
// action settled it, so darwin-memo keeps reading its own defaults.
func TestE2EScaleInputLeavesLedgerConfigAbsent(t *testing.T) {
	t.Parallel()
	seeded, es := seedStore(t)
	var doc map[string]any
	if err := json.Unmarshal(seeded, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc["ledger"].(map[string]any), "config") // as darwin-memo writes it
	store, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, store)
	pr := h.merge("Fix itest", h.ticketFor("how do I run the integration tests"), measured(1))
	res := h.run("pull_request_target", mergedEvent(pr.Number), map[string]string{"scale": "3"})
	mustCode(t, res, 0)
	b, _ := h.git.File(DefaultBranch, storePath)
	if strings.Contains(string(b), `"resource_scale"`) || strings.Contains(string(b), `"supporting_share"`) {
		t.Fatalf("the action wrote a ledger.config into a store that had none")
	}
	e, _ := h.botStore(DefaultBranch).Entry(es[0].ID)
	if want := 1 + 0.6*math.Tanh(1.0/3) - 0.05; math.Abs(e.Energy-want) > 1e-9 {
		t.Fatalf("decider energy %v, want %v (scale 3 applied to this settlement, then one tick of upkeep)", e.Energy, want)
	}
}
