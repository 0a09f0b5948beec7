package rank

import (
	"slices"
	"strings"
	"testing"
)

func TestTerms(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"How do I build the workspace?", "build workspac"},
		{"where is feature-profile-edit", "feature_profile_edit featur profil edit"},
		{"pkg/auth tests", "pkg_auth pkg auth test"},
		{"set USE_FAKE_S3=1", "set use_fake_s3 use fake s3 1"},
		{"useFakeS3 and HTTPServer", "use_fake_s3 use fake s3 http_server http server"},
		{"Go 1.22.3 on v1.21", "go 1.22.3 v1.21"},
		{"what's flaking? don't retry", "flak retr"},
		{"queries passes flaked", "quer pass flak"},
		{"Ünïcode café", "ünïcod café"},
	} {
		if got := strings.Join(Terms(c.in), " "); got != c.want {
			t.Errorf("Terms(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	q := QueryTerms("Flaky flakes in pkg/auth")
	var got []string
	for _, t := range q {
		got = append(got, t.Term+"<"+t.Word)
	}
	if want := []string{"flak<flaky", "pkg_auth<pkg_auth", "pkg<pkg", "auth<auth"}; !slices.Equal(got, want) {
		t.Errorf("QueryTerms = %v, want %v", got, want)
	}
}

// FuzzTerms: the tokeniser never yields an empty term or an upper-case
// letter, and QueryTerms are Terms without repeats.
func FuzzTerms(f *testing.F) {
	for _, s := range []string{"feature-profile-edit", "USE_FAKE_S3", "HTTPServer's v1.2", "a-/-b", "Ünïcode_x.Y", "..--__"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		terms := Terms(s)
		for _, term := range terms {
			if term == "" || strings.ToLower(term) != term {
				t.Fatalf("Terms(%q) yields %q", s, term)
			}
		}
		var distinct []string
		for _, term := range terms {
			if !slices.Contains(distinct, term) {
				distinct = append(distinct, term)
			}
		}
		var q []string
		for _, qt := range QueryTerms(s) {
			q = append(q, qt.Term)
		}
		if !slices.Equal(q, distinct) {
			t.Fatalf("QueryTerms(%q) = %v, Terms without repeats %v", s, q, distinct)
		}
	})
}
