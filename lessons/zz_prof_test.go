package lessons
import ("testing";"github.com/darwin-memo/darwin-memo-action/internal/lexrank")
func BenchmarkLexBuild(b *testing.B){
 data := benchStoreBytes(b, 10000)
 s, _ := Parse("b", data)
 es := s.living
 b.Run("par", func(b *testing.B){ for b.Loop() { newLexIndex(s.living) } })
 b.Run("seq", func(b *testing.B){ for b.Loop() { lexrank.Build(len(es), func(i int) (string, string) { return es[i].Question, es[i].Answer }, 1) } })
 b.Run("v1", func(b *testing.B){ for b.Loop() { s.idx = nil; s.dict = nil; for _, e := range s.living { e.hasSet = false }; s.ensureIndex() } })
}
