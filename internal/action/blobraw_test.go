package action

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// blobAnswer is GitHub's answer to GET /git/blobs/{sha} for want without the raw media type:
// the blob object, base64 in lines of 60 characters, each followed by an escaped line break.
func blobAnswer(want []byte) string {
	enc := base64.StdEncoding.EncodeToString(want)
	var b strings.Builder
	for len(enc) > 60 {
		b.WriteString(enc[:60] + `\n`)
		enc = enc[60:]
	}
	b.WriteString(enc + `\n`)
	return `{"sha":"abc","node_id":"B_abc","size":` + strconv.Itoa(len(want)) + `,"url":"https://x/y","content":"` + b.String() + `","encoding":"base64"}`
}

// An answer to the raw media type is the blob when it is exactly the size the contents API
// gave; anything shorter or longer (a cut transfer, a blob object) is an error, never a wrong
// store. A store whose own text looks like a blob object is still the store: its length
// decides, not its bytes.
func TestReadRawBlob(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	read := func(body string, size int) ([]byte, error) {
		return readExactly(iotest.HalfReader(strings.NewReader(body)), size)
	}
	for _, n := range []int{0, 1, 2, 3, 44, 45, 46, 1000, 200_000, 300_001} {
		want := make([]byte, n)
		for i := range want {
			want[i] = byte(r.IntN(256))
		}
		if got, err := read(string(want), n); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("raw, %d bytes: %v", n, err)
		}
		if _, err := read(blobAnswer(want), n); err == nil {
			t.Fatalf("blob object, %d bytes: no error", n)
		}
		if n > 0 {
			if _, err := read(string(want[:n-1]), n); err == nil {
				t.Fatalf("%d bytes cut short by one: no error", n)
			}
			if _, err := read(string(want)+"x", n); err == nil {
				t.Fatalf("%d bytes and one more: no error", n)
			}
		}
	}
	lookalike := blobAnswer([]byte("hi"))
	if got, err := read(lookalike, len(lookalike)); err != nil || string(got) != lookalike {
		t.Fatalf("a lookalike of its size: %q %v", got, err)
	}
}
