package citation

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		source  string
		want    Citation
		wantErr string // "" for none; "-" for ErrNotCitation
	}{
		{"path:internal/x.go", Citation{Path: "internal/x.go"}, ""},
		{"path:internal/x.go#Decide", Citation{Path: "internal/x.go", Symbol: "Decide"}, ""},
		{"path:./a//b/../c.go", Citation{Path: "a/c.go"}, ""},
		{"path:internal/docscheck", Citation{Path: "internal/docscheck"}, ""},
		{"path:.ci/run", Citation{Path: ".ci/run"}, ""},
		{"path:src/ü.go#größe_2", Citation{Path: "src/ü.go", Symbol: "größe_2"}, ""},
		{"path-removed:src/old.go#Fn", Citation{Path: "src/old.go", Symbol: "Fn", Removed: true}, ""},
		{"pr#12", Citation{}, "-"},
		{"issue:15", Citation{}, "-"},
		{"seed", Citation{}, "-"},
		{"Path:x.go", Citation{}, "-"},
		{"path:", Citation{}, "empty"},
		{"path:/etc/passwd", Citation{}, "absolute"},
		{"path:../secret", Citation{}, "climbs out"},
		{"path:a/../../secret", Citation{}, "climbs out"},
		{"path:..", Citation{}, "climbs out"},
		{"path:.", Citation{}, "root"},
		{"path:a\\b.go", Citation{}, "backslash"},
		{"path:a\x00b.go", Citation{}, "control"},
		{"path:a\nb.go", Citation{}, "control"},
		{"path:C:/x.go", Citation{}, "drive"},
		{"path:./C:/x.go", Citation{}, "drive"}, // a drive after cleaning
		{"path:\xff.go", Citation{}, "UTF-8"},
		{"path:x.go#", Citation{}, "empty citation symbol"},
		{"path:x.go#1abc", Citation{}, "not an identifier"},
		{"path:x.go#a b", Citation{}, "not an identifier"},
		{"path:x.go#a#b", Citation{}, "not an identifier"},
		{"path:" + strings.Repeat("a", MaxLen+1), Citation{}, "longer than"},
	}
	for _, tt := range tests {
		got, err := Parse(tt.source)
		switch {
		case tt.wantErr == "-":
			if !errors.Is(err, ErrNotCitation) {
				t.Errorf("Parse(%q) error %v, want ErrNotCitation", tt.source, err)
			}
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Parse(%q) = %+v, %v; want an error with %q", tt.source, got, err, tt.wantErr)
			}
		case err != nil || got != tt.want:
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tt.source, got, err, tt.want)
		default:
			if again, err := Parse(got.Source()); err != nil || again != got {
				t.Errorf("Parse(%q) does not read back its Source %q: %+v, %v", tt.source, got.Source(), again, err)
			}
		}
	}
}

func TestFromPath(t *testing.T) {
	t.Parallel()
	tests := []struct{ arg, want, wantErr string }{
		{"internal/x.go", "path:internal/x.go", ""},
		{"./internal/x.go#Run", "path:internal/x.go#Run", ""},
		{"/abs/x.go", "", "absolute"},
		{"../x.go", "", "climbs out"},
		{"", "", "empty"},
	}
	for _, tt := range tests {
		got, err := FromPath(tt.arg)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("FromPath(%q) = %q, %v; want an error with %q", tt.arg, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("FromPath(%q) = %q, %v; want %q", tt.arg, got, err, tt.want)
		}
	}
}

// FuzzParse: Parse never panics, a parsed citation reads back from its own label, and no
// accepted path can leave the root or mean something else on another system.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"path:a.go", "path:a/b.go#F", "path-removed:x#y", "path:../a", "path:/a", "path:a\\b", "pr#1", "path:a/./b//c", "path:C:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Parse(s)
		if err != nil {
			return
		}
		p := c.Path
		if p == "" || strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "/../") ||
			strings.ContainsAny(p, "\\\x00") || strings.Contains(c.Symbol, "#") {
			t.Fatalf("Parse(%q) accepted %+v", s, c)
		}
		if again, err := Parse(c.Source()); err != nil || again != c {
			t.Fatalf("Parse(%q) = %+v does not round-trip through %q: %+v, %v", s, c, c.Source(), again, err)
		}
	})
}

func TestMentions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sources []string
		want    bool
	}{{nil, false}, {[]string{"pr#1", "pathology"}, false}, {[]string{"pr#1", "path:a.go"}, true}, {[]string{"path-removed:a.go"}, true}} {
		if got := Mentions(tt.sources); got != tt.want {
			t.Errorf("Mentions(%q) = %v", tt.sources, got)
		}
	}
}
