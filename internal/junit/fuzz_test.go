package junit

import (
	"os"
	"path/filepath"
	"testing"
)

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.xml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`<testsuite><testcase name="a"><flakyFailure/><skipped/></testcase></testsuite>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := ParseBytes("fuzz.xml", data)
		if err != nil {
			return
		}
		res := rep.Results()
		c := Count(res)
		if c.Tests != len(res) || c.Passed+c.Failed+c.Skipped+c.Flaky != c.Tests {
			t.Fatalf("inconsistent counts %+v for %d ids", c, len(res))
		}
		if len(res) > len(rep.Cases) {
			t.Fatalf("%d ids from %d cases", len(res), len(rep.Cases))
		}
		for _, cs := range rep.Cases {
			if res[cs.ID].rank() < cs.Status.rank() {
				t.Fatalf("combined status %q of %q ranks below a case status %q", res[cs.ID], cs.ID, cs.Status)
			}
		}
	})
}
