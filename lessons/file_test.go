package lessons

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/darwin-memo/darwin-memo-action/internal/storedoc"
)

func copyFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "lessons.json")
	if err := os.WriteFile(p, readFixture(t), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSaveRoundTripsAndLeavesLockFile(t *testing.T) {
	ctx := context.Background()
	p := copyFixture(t)
	s, err := Load(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Save(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if !bytes.Equal(got, readFixture(t)) {
		t.Error("save of an unmodified store changed the bytes")
	}
	if _, err := os.Stat(p + ".lock"); err != nil {
		t.Errorf("lock sidecar missing: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	for _, e := range entries {
		if e.Name() != "lessons.json" && e.Name() != "lessons.json.lock" {
			t.Errorf("stray file %s left behind", e.Name())
		}
	}
	// a second save after the first still works (the loaded snapshot moved on)
	if err := s.Save(ctx); err != nil {
		t.Errorf("second save: %v", err)
	}
}

// Case 26: stale writer.
func TestCase26StaleWriter(t *testing.T) {
	ctx := context.Background()
	p := copyFixture(t)
	s, err := Load(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"config": {}, "entries": [], "graveyard": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	err = s.Save(ctx)
	if !errors.Is(err, storedoc.ErrStale) {
		t.Fatalf("Save after external change = %v, want storedoc.ErrStale", err)
	}
	if got, _ := os.ReadFile(p); string(got) != `{"config": {}, "entries": [], "graveyard": []}` {
		t.Error("stale save overwrote the file")
	}
}

func TestLockContention(t *testing.T) {
	ctx := context.Background()
	p := copyFixture(t)
	s, err := LoadLocked(ctx, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := storedoc.LockWait(t.Context(), p, -1); !errors.Is(err, storedoc.ErrLocked) {
		t.Fatalf("second Lock = %v, want storedoc.ErrLocked", err)
	}
	other, err := LoadWith(ctx, p, Options{LockWait: 30 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Save(ctx); !errors.Is(err, storedoc.ErrLocked) {
		t.Fatalf("save while locked elsewhere = %v, want storedoc.ErrLocked", err)
	}
	if err := s.Save(ctx); err != nil {
		t.Fatalf("save by the lock holder: %v", err)
	}
	s.Close()
	if l, err := storedoc.LockWait(t.Context(), p, -1); err != nil {
		t.Fatalf("lock after Close: %v", err)
	} else {
		l.Unlock()
	}
}

func TestLoadMissingAndMalformed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	_, err := Load(ctx, filepath.Join(dir, "nope.json"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	s, err := LoadOrNew(ctx, filepath.Join(dir, "new.json"), Options{})
	if err != nil || len(s.Living()) != 0 {
		t.Fatalf("LoadOrNew: %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"config": {}, "entries": [{"question": 1}], "graveyard": []}`), 0o644)
	_, err = Load(ctx, bad)
	if err == nil || err.Error() != bad+": $.entries[0].question: expected a string, got number" {
		t.Errorf("malformed: %v", err)
	}
}

// TestNewStoreConfig checks that Options.Config seeds only stores created
// fresh: a persisted ledger.config wins over it.
func TestNewStoreConfig(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	rec := RecommendedConfig()
	if rec.SupportingShare != 0 || DefaultConfig().SupportingShare != 0.25 {
		t.Fatalf("recommended share %v, default share %v", rec.SupportingShare, DefaultConfig().SupportingShare)
	}
	opts := Options{Config: &rec}

	fresh := filepath.Join(dir, "fresh.json")
	s, err := LoadOrNew(ctx, fresh, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Save(ctx); err != nil {
		t.Fatal(err)
	}
	if got := persistedShare(t, fresh); got != 0 {
		t.Errorf("new store persisted supporting_share %v, want 0", got)
	}
	if New("x", Options{}).Config().SupportingShare != 0.25 {
		t.Error("New without Options.Config must start with DefaultConfig")
	}

	old := filepath.Join(dir, "darwin-memo.json")
	os.WriteFile(old, []byte(`{"config": {}, "entries": [], "graveyard": [], "ledger": {"tick": 0, "pending": [], "config": {"supporting_share": 0.25}}}`), 0o644)
	s, err = LoadOrNew(ctx, old, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Config().SupportingShare; got != 0.25 {
		t.Errorf("loaded store share %v, want its persisted 0.25", got)
	}
	if err := s.Save(ctx); err != nil {
		t.Fatal(err)
	}
	if got := persistedShare(t, old); got != 0.25 {
		t.Errorf("resaved store persisted supporting_share %v, want 0.25", got)
	}
}

func persistedShare(t *testing.T, path string) float64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Ledger struct {
			Config map[string]any `json:"config"`
		} `json:"ledger"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	f, ok := doc.Ledger.Config["supporting_share"].(float64)
	if !ok {
		t.Fatalf("%s: ledger.config.supporting_share missing: %s", path, data)
	}
	return f
}
