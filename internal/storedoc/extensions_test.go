package storedoc

import (
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/pyjson"
)

func TestExtensions(t *testing.T) {
	var x Extensions
	x.Read("b", pyjson.Int(1))
	x.Read("a", pyjson.String("é"))
	x.Read("b", pyjson.Float(2)) // repeated: first place, last value
	steps := []struct {
		name     string
		key      string
		data     []byte
		wantErr  string
		wantKeys string
	}{
		{name: "as read", wantKeys: "b,a"},
		{name: "set a key there keeps its place", key: "b", data: []byte(`{"n": NaN}`), wantKeys: "b,a"},
		{name: "a new key goes last", key: "c", data: []byte(`[]`), wantKeys: "b,a,c"},
		{name: "nil removes", key: "a", wantKeys: "b,c"},
		{name: "an own key is refused", key: "ledger", data: []byte(`{}`), wantErr: "key of the store itself", wantKeys: "b,c"},
		{name: "not JSON", key: "d", data: []byte(`{`), wantErr: "extension d", wantKeys: "b,c"},
	}
	for _, st := range steps {
		if st.key != "" {
			err := x.Set(st.key, st.data)
			if (err == nil) != (st.wantErr == "") || err != nil && !strings.Contains(err.Error(), st.wantErr) {
				t.Errorf("%s: Set = %v, want %q", st.name, err, st.wantErr)
			}
		}
		if got := strings.Join(extensionKeys(x), ","); got != st.wantKeys {
			t.Errorf("%s: keys %s, want %s", st.name, got, st.wantKeys)
		}
	}
	if v, ok := x.Get("b"); !ok || string(v) != `{"n": NaN}` {
		t.Errorf("Get(b) = %s, %v", v, ok)
	}
	if _, ok := x.Get("a"); ok {
		t.Error("a removed key is still there")
	}
	w := pyjson.NewWriter(nil, 0)
	w.Open('{')
	w.Key("config")
	w.Raw("{}")
	x.Write(w, []string{"c"})
	w.Close('}')
	if got, want := string(w.Bytes()), "{\n  \"config\": {},\n  \"b\": {\n    \"n\": NaN\n  }\n}"; got != want {
		t.Errorf("written %q, want %q", got, want)
	}
	if !OwnKey("retriever") || OwnKey("darwin_memo_action") || !OwnKey("entries") {
		t.Error("OwnKey")
	}
}

// extensionKeys lists x's keys in document order.
func extensionKeys(x Extensions) []string {
	var keys []string
	for _, mb := range x.members {
		keys = append(keys, mb.Key)
	}
	return keys
}
