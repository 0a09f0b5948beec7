package ghfake

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"testing"
)

// TestWriteBlobContent checks the blocked encoder against the line-at-a-time spelling: 45 bytes
// a line of 60 characters, each line (the last and an empty blob's only one too) followed by \n.
func TestWriteBlobContent(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 44, 45, 46, 89, 90, 91, 45*256 - 1, 45 * 256, 45*256 + 1, 45*512 + 7, 100_000, 1 << 20} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		var want []byte
		for rest := b; ; {
			k := min(45, len(rest))
			want = base64.StdEncoding.AppendEncode(want, rest[:k])
			want = append(want, `\n`...)
			rest = rest[k:]
			if len(rest) == 0 {
				break
			}
		}
		var got bytes.Buffer
		out := writeBlobContent(&got, []byte("head"), b)
		got.Write(out)
		if !bytes.Equal(got.Bytes(), append([]byte("head"), want...)) {
			t.Errorf("%d bytes: content differs from the line-at-a-time spelling", n)
		}
	}
}
