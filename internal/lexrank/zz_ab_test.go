package lexrank

import (
	"fmt"
	"github.com/darwin-memo/darwin-memo-action/internal/textidx"
	"github.com/darwin-memo/darwin-memo-action/internal/textidx/textgen"
	"testing"
	"time"
)

func TestAB(t *testing.T) {
	ls := textgen.Lessons(3, 10000)
	texts := make([]string, len(ls))
	for i, l := range ls {
		texts[i] = l.Question + " " + l.Answer
	}
	var a, b time.Duration
	for i := 0; i < 25; i++ {
		t0 := time.Now()
		Build(len(ls), func(i int) (string, string) { return ls[i].Question, ls[i].Answer }, 1)
		d := time.Since(t0)
		if a == 0 || d < a {
			a = d
		}
		t0 = time.Now()
		dd := textidx.NewDict()
		textidx.NewIndexIDs(dd, dd.InternTexts(texts))
		d = time.Since(t0)
		if b == 0 || d < b {
			b = d
		}
	}
	fmt.Println("v2", a, "v1", b)
}
