package settle

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"sort"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/junit"
)

func writeZip(tb testing.TB, w io.Writer, files map[string][]byte) {
	tb.Helper()
	zw := zip.NewWriter(w)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fw, err := zw.Create(n)
		if err != nil {
			tb.Fatal(err)
		}
		fw.Write(files[n])
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
}

func TestReadJUnitZip(t *testing.T) {
	report := []byte(`<testsuite><testcase classname="c" name="t"/></testsuite>`)
	bomb := bytes.Repeat([]byte(" "), 4<<20)
	tests := []struct {
		name      string
		files     map[string][]byte
		lim       func(*Limits)
		wantIDs   int
		wantNote  string
		wantErr   bool
		truncated bool
	}{
		{name: "report in a folder", files: map[string][]byte{"build/test-results/TEST-x.xml": report, "log.txt": []byte("x")}, wantIDs: 1},
		{name: "zip slip entries skipped", files: map[string][]byte{"../../etc/x.xml": report, "/abs.xml": report, `C:\win.xml`: report, "ok.xml": report}, wantIDs: 1, wantNote: "unsafe path"},
		{name: "oversized entry skipped", files: map[string][]byte{"big.xml": report}, lim: func(l *Limits) { l.MaxEntryBytes = 10 }, wantNote: "limit"},
		{name: "bomb ratio skipped", files: map[string][]byte{"bomb.xml": bomb, "ok.xml": report}, wantIDs: 1, wantNote: "compression ratio"},
		{name: "non-JUnit XML noted", files: map[string][]byte{"pom.xml": []byte("<project/>"), "ok.xml": report}, wantIDs: 1, wantNote: "not JUnit"},
		{name: "broken JUnit is an error", files: map[string][]byte{"r.xml": []byte("<testsuite><testcase>")}, wantErr: true},
		{name: "too many entries", files: map[string][]byte{"a.xml": report, "b.xml": report}, lim: func(l *Limits) { l.MaxEntries = 1 }, wantErr: true},
		{name: "no reports", files: map[string][]byte{"x.txt": nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			writeZip(t, &buf, tt.files)
			lim := DefaultLimits()
			if tt.lim != nil {
				tt.lim(&lim)
			}
			rep, notes, err := readJUnitZip("art", buf.Bytes(), lim)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			n := 0
			if rep != nil {
				n = len(rep.Results())
			}
			if n != tt.wantIDs {
				t.Errorf("ids = %d, want %d", n, tt.wantIDs)
			}
			if tt.wantNote != "" && !strings.Contains(strings.Join(notes, "\n"), tt.wantNote) {
				t.Errorf("notes %q lack %q", notes, tt.wantNote)
			}
		})
	}
	var buf bytes.Buffer
	writeZip(t, &buf, map[string][]byte{"a.xml": report})
	if _, _, err := readJUnitZip("art", buf.Bytes()[:buf.Len()/2], DefaultLimits()); !errors.Is(err, errTruncated) {
		t.Errorf("truncated zip: %v", err)
	}
}

func TestArtifactMatches(t *testing.T) {
	for _, tt := range []struct {
		pattern, name string
		want          bool
	}{
		{"", "junit-results", true}, {"", "Test Reports", true}, {"", "binaries", false},
		{"surefire-*", "surefire-reports", true}, {"surefire-*", "junit", false}, {"[", "x", false},
	} {
		if got := artifactMatches(tt.pattern, tt.name); got != tt.want {
			t.Errorf("artifactMatches(%q, %q) = %v", tt.pattern, tt.name, got)
		}
	}
}

// readJUnitZip is tallyJUnitZip with the whole per-commit budget.
func readJUnitZip(name string, data []byte, lim Limits) (*junit.Tally, []string, error) {
	t, _, notes, err := tallyJUnitZip(name, data, lim, budget{lim.MaxCommitBytes, lim.MaxCases})
	return t, notes, err
}
