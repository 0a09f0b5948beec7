package action

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
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

// streamBlob decodes GitHub's shape as it arrives, across its buffer's boundaries, to the bytes
// decodeBlob gives; any other shape is errBlobShape (the caller reads it again the general way),
// never a wrong store.
func TestStreamBlob(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 3, 44, 45, 46, 1000, 200_000, 300_001} {
		want := make([]byte, n)
		for i := range want {
			want[i] = byte(r.IntN(256))
		}
		body := blobAnswer(want)
		for _, size := range []int{n, 0} {
			got, err := streamBlob(iotest.HalfReader(strings.NewReader(body)), size)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%d bytes (size %d): %v", n, size, err)
			}
		}
		if dec, err := decodeBlob([]byte(body)); err != nil || !bytes.Equal(dec, want) {
			t.Fatalf("decodeBlob, %d bytes: %v", n, err)
		}
	}
	want := []byte(strings.Repeat(`{"question": "q\u00e9"}`+"\n", 40))
	content, _ := json.Marshal(base64.StdEncoding.EncodeToString(want))
	if got, err := streamBlob(strings.NewReader(`{ "encoding" : "base64", "content" : `+string(content)+` , "size": 3, "x": null }`+"\n"), 0); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("spaces and order: %v", err)
	}
	for _, other := range []string{
		`{"content":` + string(content) + `,"encoding":"base64","links":{"self":"x"}}`,
		`{"content":"QU\u004aD","encoding":"base64"}`,
		`{"content":` + mustJSON(string(want)) + `,"encoding":"utf-8"}`,
		`{"content":"@@@@","encoding":"base64"}`,
		`{"content":"QUJD","encoding":"gzip"}`,
		`{"content":"QQ==QUJD","encoding":"base64"}`,
		`{"content":"QUJD\"","encoding":"base64"}`,
		`{"content":"QUJD"}`,
		`{"content":"QUJD","encoding":"base64"} x`,
		`[]`, `{"content":`, ``,
	} {
		if _, err := streamBlob(strings.NewReader(other), 0); !errors.Is(err, errBlobShape) {
			t.Errorf("%s: %v, want errBlobShape", other, err)
		}
	}
}
