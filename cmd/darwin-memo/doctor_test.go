package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 23 §6: doctor reports everything for which another command refuses the store. The
// table walks the refusals: each broken store is refused by a command, and doctor names the
// same problem (and exits 1 when the refusal is an error, as for a malformed file).
func TestDoctorReportsWhatOtherCommandsRefuse(t *testing.T) {
	fixture, err := os.ReadFile("testdata/lessons.json")
	if err != nil {
		t.Fatal(err)
	}
	const energy = `"energy": 0.3499992591112975`
	if !bytes.Contains(fixture, []byte(energy)) {
		t.Fatal("setup: energy to replace not found")
	}
	tests := []struct {
		name       string
		data       []byte
		mode       os.FileMode
		refusedBy  []string // commands (with STORE) that refuse it, exit 1
		refusal    string   // substring of their stderr
		doctorCode int
		doctorSays string // substring of doctor's output (stdout or stderr)
	}{
		{"NaN energy", bytes.Replace(fixture, []byte(energy), []byte(`"energy": NaN`), 1), 0o644,
			[]string{"tick", "settle a899bb29d181 1"}, "no balance can be computed", 1, "energy_not_finite"},
		{"infinite energy", bytes.Replace(fixture, []byte(energy), []byte(`"energy": -Infinity`), 1), 0o644,
			[]string{"tick", "settle a899bb29d181 1"}, "no balance can be computed", 1, "energy_not_finite"},
		{"read-only", fixture, 0o444,
			[]string{"tick", "add q a", "pin 053a99cf0a4c"}, "read-only", 0, "store_read_only"},
		{"malformed", []byte(`{"entries": [{"question": "q", "answer": "a", "energy": "high"}], "graveyard": []}`), 0o644,
			[]string{"tick", "stats", "settle a899bb29d181 1"}, "expected a number", 1, "expected a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := filepath.Join(t.TempDir(), "lessons.json")
			if err := os.WriteFile(store, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(store, tt.mode); err != nil {
				t.Fatal(err)
			}
			for _, cmd := range tt.refusedBy {
				f := strings.Fields(cmd)
				r := runCLI(t, append([]string{f[0], "--store", store}, f[1:]...)...)
				if r.code != exitError || !strings.Contains(r.stderr, tt.refusal) {
					t.Fatalf("setup: %s was not refused (%+v); the table is out of date", cmd, r)
				}
			}
			r := runCLI(t, "doctor", "--json", "--store", store)
			if r.code != tt.doctorCode || !strings.Contains(r.stdout+r.stderr, tt.doctorSays) {
				t.Errorf("doctor: exit %d, stdout %q, stderr %q; want exit %d naming %q", r.code, r.stdout, r.stderr, tt.doctorCode, tt.doctorSays)
			}
			if r.code == exitOK || strings.HasPrefix(r.stdout, "{") {
				var d struct {
					Findings []struct{ Code, Severity string }
				}
				if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
					t.Fatalf("doctor --json: %v", err)
				}
			}
			if r := runCLI(t, "doctor", "--store", store); !strings.Contains(r.stdout+r.stderr, tt.doctorSays) {
				t.Errorf("doctor (text) does not name %q: %+v", tt.doctorSays, r)
			}
		})
	}
}
