package action

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// blobAnswer is GitHub's answer to GET /git/blobs/{sha} for want: base64 in lines of 60
// characters, each followed by an escaped line break.
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

// An answer to the raw media type is read into a buffer of the blob's size and taken as the
// blob when it is exactly that long; a longer one is a blob object (a server that ignores the
// media type) and is decoded; anything else is an error, never a wrong store. A store whose
// own text looks like a blob object is still the store: its length decides, not its bytes.
func TestReadRawBlob(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	read := func(body string, size int) ([]byte, error) {
		b, err := readAnswer(iotest.HalfReader(strings.NewReader(body)), size)
		if err != nil {
			return nil, err
		}
		return blobBytes(b, size)
	}
	for _, n := range []int{0, 1, 2, 3, 44, 45, 46, 1000, 200_000, 300_001} {
		want := make([]byte, n)
		for i := range want {
			want[i] = byte(r.IntN(256))
		}
		if got, err := read(string(want), n); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("raw, %d bytes: %v", n, err)
		}
		if got, err := read(blobAnswer(want), n); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("blob object, %d bytes: %v", n, err)
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
	// A store document shaped like a blob object is read as the bytes it is.
	lookalike := blobAnswer([]byte("hi"))
	if got, err := read(lookalike, len(lookalike)); err != nil || string(got) != lookalike {
		t.Fatalf("a lookalike of its size: %q %v", got, err)
	}
	// An answer far longer than any encoding of the blob is refused before it is all held.
	if _, err := readAnswer(strings.NewReader(strings.Repeat("x", 200_000)), 10); err == nil || !strings.Contains(err.Error(), "longer than a blob") {
		t.Fatalf("an overlong answer: %v", err)
	}
	want := []byte(strings.Repeat(`{"question": "q\u00e9"}`+"\n", 40))
	content, _ := json.Marshal(base64.StdEncoding.EncodeToString(want))
	if got, err := read(`{ "encoding" : "base64", "content" : `+string(content)+` , "size": 3, "x": null }`+"\n", len(want)); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("an object with spaces and another order: %v", err)
	}
	if got, err := read(`{"content":`+mustJSON(string(want))+`,"encoding":"utf-8"}`, len(want)); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("an object with utf-8 content: %v", err)
	}
	for _, other := range []string{
		`{"content":"@@@@","encoding":"base64"}`,
		`{"content":"QUJD","encoding":"gzip"}`,
		`{"content":"QQ==QUJD","encoding":"base64"}`,
		`{"content":"QUJD"}`,
		`[]`, `{"content":`,
	} {
		if got, err := read(other, 3); err == nil {
			t.Errorf("%s: %q, want an error", other, got)
		}
	}
}
