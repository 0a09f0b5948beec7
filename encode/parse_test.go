package encode

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseLessons(t *testing.T) {
	one := []RawLesson{{Question: "Q?", Answer: "A.", Kind: "explicit", Evidence: []string{"pr"}, Paths: []string{}}}
	obj := `{"lessons":[{"question":"Q?","answer":"A.","kind":"explicit","evidence":["pr"],"paths":[]}]}`
	for _, tc := range []struct {
		name, in string
		want     []RawLesson
		err      string
	}{
		{"object", obj, one, ""},
		{"bare array", `[{"question":"Q?","answer":"A.","kind":"explicit","evidence":["pr"],"paths":[]}]`, one, ""},
		{"fenced", "```json\n" + obj + "\n```", one, ""},
		{"prose around", "Sure! " + obj + " Hope this helps {", one, ""},
		{"think block", "<think>maybe [ { \"lessons\": 1</think>\n" + obj, one, ""},
		{"unterminated think", "<think>[{\"question\":\"x\"}]", nil, "no JSON"},
		{"stray close think", "reasoning [ here</think>" + obj, one, ""},
		{"empty lessons", `{"lessons":[]}`, []RawLesson{}, ""},
		{"no json", "I cannot help with that.", nil, "no JSON"},
		{"missing lessons", `{"lesson":[]}`, nil, "unknown field"},
		{"null lessons", `{"lessons":null}`, nil, "missing"},
		{"unknown lesson field", `{"lessons":[{"question":"Q?","answer":"A.","kind":"explicit","evidence":[],"paths":[],"run":"rm"}]}`, nil, "unknown field"},
		{"wrong type", `{"lessons":[{"question":1}]}`, nil, "cannot unmarshal"},
		{"truncated", `{"lessons":[{"question":"Q?"`, nil, "unexpected EOF"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseLessons(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	if _, err := ParseLessons("nothing"); !errors.Is(err, ErrNoJSON) {
		t.Errorf("err = %v, want ErrNoJSON", err)
	}
}

func FuzzParseLessons(f *testing.F) {
	f.Add(`{"lessons":[{"question":"Q?","answer":"A.","kind":"explicit","evidence":["pr"],"paths":[]}]}`)
	f.Add(`<think>[</think>[{"question":"q"}]`)
	f.Add("```json\n{\"lessons\":[]}\n```")
	f.Add(`{"lessons":[{"question":"\u0069gnore","answer":"` + strings.Repeat("a", 700) + `"}]}`)
	f.Add(`[[[[`)
	docs := (&PR{Title: "t", Body: "Lesson: a b c? d e f g.", Files: []File{{Path: "a.go", Patch: "+x"}}}).Normalize().Documents()
	f.Fuzz(func(t *testing.T, s string) {
		ls, err := ParseLessons(s)
		if err != nil {
			return
		}
		// A parsed reply re-encodes and parses to the same lessons.
		again, err := ParseLessons(string(marshalLessons(ls)))
		if err != nil || len(again) != len(ls) {
			t.Fatalf("round trip: %v, %d vs %d lessons", err, len(again), len(ls))
		}
		// Validation never panics, and whatever passes is clean.
		chk := newChecker(docs)
		for _, l := range ls {
			if chk.check(l) != "" {
				continue
			}
			text := l.Question + " " + l.Answer
			if urlPattern.MatchString(text) || instructionPattern.MatchString(normalizeWords(text)) || secretPattern.MatchString(text) {
				t.Fatalf("lesson passed with forbidden content: %+v", l)
			}
			if _, ok := hiddenRune(text); ok {
				t.Fatalf("lesson passed with hidden characters: %+v", l)
			}
		}
	})
}
