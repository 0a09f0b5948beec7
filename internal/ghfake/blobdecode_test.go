package ghfake

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"testing"
)

func TestDecodeBase64InPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	raw := make([]byte, 40000)
	for i := range raw {
		raw[i] = byte(r.IntN(256))
	}
	enc := base64.StdEncoding.EncodeToString(raw)
	cases := []struct {
		name string
		text string
	}{
		{"empty", ""},
		{"one byte", base64.StdEncoding.EncodeToString(raw[:1])},
		{"one chunk", base64.StdEncoding.EncodeToString(raw[:3072])},
		{"chunk and a bit", base64.StdEncoding.EncodeToString(raw[:3074])},
		{"many chunks", enc},
		{"padding inside", base64.StdEncoding.EncodeToString(raw[:3071]) + enc[:8]},
		{"padding at a chunk's end, more after", base64.StdEncoding.EncodeToString(raw[:3071])[:4096] + enc[:8]},
		{"bad character", enc[:5000] + "!" + enc[5001:]},
		{"truncated", enc[:len(enc)-1]},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := make([]byte, base64.StdEncoding.DecodedLen(len(c.text)))
			wn, werr := base64.StdEncoding.Decode(want, []byte(c.text))
			const pre, post = `{"content":"`, `","encoding":"base64"}`
			buf := []byte(pre + c.text + post)
			n, err := decodeBase64InPlace(buf, len(pre), len(pre)+len(c.text))
			if (err != nil) != (werr != nil) {
				t.Fatalf("error %v, base64.Decode's %v", err, werr)
			}
			if err == nil && (n != wn || !bytes.Equal(buf[:n], want[:wn])) {
				t.Fatalf("decoded %d bytes, want %d (equal %v)", n, wn, bytes.Equal(buf[:n], want[:wn]))
			}
		})
	}
}
