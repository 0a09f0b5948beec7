package botpr

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/iotest"

	"github.com/google/go-github/v62/github"
)

// base64Reader gives base64.StdEncoding's bytes, whatever the reads' sizes.
func TestBase64Reader(t *testing.T) {
	for n := 0; n < 70; n++ {
		src := bytes.Repeat([]byte{0xfb, 'a', 0x00, 'z', 0x7f}, 20)[:n]
		want := base64.StdEncoding.EncodeToString(src)
		for _, r := range []io.Reader{&base64Reader{src: src}, iotest.OneByteReader(&base64Reader{src: src}), iotest.HalfReader(&base64Reader{src: src})} {
			got, err := io.ReadAll(r)
			if err != nil || string(got) != want {
				t.Fatalf("%d bytes: %q, %v; want %q", n, got, err, want)
			}
		}
	}
}

// createBlob sends the bytes go-github's Git.CreateBlob sends, with the length known, and
// again when the transport retries.
func TestCreateBlobSendsGoGithubsBytes(t *testing.T) {
	content := bytes.Repeat([]byte("lessons \x00\xff"), 1000)
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	enc.Encode(&github.Blob{Content: github.String(base64.StdEncoding.EncodeToString(content)), Encoding: github.String("base64")})
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.ContentLength != int64(len(b)) || r.Header.Get("Content-Type") != "application/json" || r.Method != http.MethodPost || r.URL.Path != "/api/v3/repos/o/r/git/blobs" {
			t.Errorf("%s %s: length %d of %d, type %q", r.Method, r.URL.Path, r.ContentLength, len(b), r.Header.Get("Content-Type"))
		}
		bodies = append(bodies, b)
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"sha":"0123456789012345678901234567890123456789","url":"u"}`)
	}))
	defer srv.Close()
	c, err := github.NewClient(nil).WithEnterpriseURLs(srv.URL, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	r := Repo{Client: c, Owner: "o", Name: "r"}
	for i := 0; i < 2; i++ {
		blob, err := r.createBlob(context.Background(), content)
		if err != nil || blob.GetSHA() != "0123456789012345678901234567890123456789" {
			t.Fatalf("%v %v", blob, err)
		}
	}
	if len(bodies) != 2 || !bytes.Equal(bodies[0], want.Bytes()) || !bytes.Equal(bodies[1], want.Bytes()) {
		t.Fatalf("sent %d bodies, not go-github's %d bytes", len(bodies), want.Len())
	}
}
