package lessons

import (
	"fmt"
	"testing"
)

func BenchmarkMarshal(b *testing.B) {
	for _, n := range sizes(b) {
		data := benchStoreBytes(b, n)
		s, err := Parse("bench", data)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := s.Marshal(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
