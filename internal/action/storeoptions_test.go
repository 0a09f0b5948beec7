package action

import (
	"os"
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
	loaded, err := r.parseStore("main", data)
	if err != nil {
		t.Fatal(err)
	}
	if got := loaded.Config().SupportingShare; got != 0.25 {
		t.Errorf("loaded store supporting_share %v, want darwin-memo's 0.25", got)
	}
	created, err := r.parseStore("main", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := created.Config().SupportingShare; got != 0 {
		t.Errorf("new store supporting_share %v, want 0", got)
	}
}
